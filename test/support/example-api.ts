/**
 * The HTTP API of a running example server (example-server.ts) as curl would call it, and a
 * sub-account with a sending domain verified through it against the test DNS server.
 */
import { expect } from 'vitest';
import { defaultDomainRecordsConfig } from 'mailplane';
import type { TestDnsServer } from './dns-server.js';
import type { ExampleServer } from './example-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Json = any;

/** Far longer than any call takes on a loaded machine. */
const REQUEST_TIMEOUT_MS = 15_000;

/** An answer: its status and JSON body. */
export interface ExampleAnswer {
  status: number;
  body: Json;
}

/** Calls of one example server's API; `account` is the header of the account key it printed. */
export interface ExampleApi {
  call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<ExampleAnswer>;
  /** Like `call`, and expects a 200 or 201 (the failure names the call and shows its body). */
  ok(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Json>;
  account: Record<string, string>;
}

/** The API of `server`, through `fetch` on its address. */
export function exampleApi(server: ExampleServer): ExampleApi {
  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      // A server that stopped answering fails the call, naming it, instead of the whole test's timeout.
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    }).catch((error: unknown) => {
      throw new Error(`${method} ${path}: ${String(error)}`);
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const ok = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const result = await call(method, path, headers, body);
    expect([200, 201], `${method} ${path}: ${JSON.stringify(result.body)}`).toContain(result.status);
    return result.body;
  };
  return { call, ok, account: { 'x-account-apikey': server.accountKey } };
}

/**
 * Publishes the SPF record every sending domain includes (publishing it again replaces it), creates a sub-account, and adds and verifies its sending domain with its records
 * published on `dns`. Answers the sub-account's id and the header of its key.
 */
export async function verifiedSender(
  api: ExampleApi,
  dns: TestDnsServer,
  name: string,
  domainName: string,
): Promise<{ id: number; key: Record<string, string> }> {
  dns.txt(defaultDomainRecordsConfig.returnPathTarget, `v=spf1 include:${defaultDomainRecordsConfig.spfInclude} ~all`);
  const sub = await api.ok('POST', '/account/subaccount', api.account, { name });
  const key = { 'x-subaccount-apikey': sub.apiKey as string };
  const domain = await api.ok('POST', '/subaccount/domain', key, { name: domainName });
  dns.txt(domain.dkim.host, domain.dkim.textValue);
  dns.cname(domain.returnPath.host, domain.returnPath.textValue);
  dns.cname(domain.track.host, domain.track.textValue);
  dns.txt(domain.dmarc.host, domain.dmarc.textValue);
  expect((await api.ok('POST', `/subaccount/domain/${domain.id}/verify`, key)).verified).toBe(true);
  return { id: sub.id as number, key };
}
