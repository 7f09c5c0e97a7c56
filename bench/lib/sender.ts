/** The benchmarks' sending set-up: an account, a sub-account and a verified domain, through the router. */
import type { Mailplane } from '../../src/mailplane.js';
import { contextOf } from '../../src/instance-context.js';
import type { TestDnsServer } from '../../test/support/dns-server.js';

/** What {@link benchSender} made: the sub-account as the API answers it. */
export interface BenchSender {
  subAccountId: number;
  apiKey: string;
  smtp: { user: string; pass: string };
}

/**
 * Creates the account `bench`, its sub-account and the domain `bench.example.com`, marked verified
 * directly (standing in for publishing DNS), in `mailplane`.
 */
export async function benchSender(mailplane: Mailplane): Promise<BenchSender> {
  const { apiKey } = await mailplane.createAccount({ name: 'bench' });
  return benchSubAccount(mailplane, apiKey, 'bench', 'bench.example.com');
}

/**
 * Creates a sub-account `name` of the account whose key is `accountKey`, with the domain
 * `domainName`: marked verified directly, or, given `dns` (the instance's DNS server), published
 * there and verified through the API. A domain marked directly loses `verified` at its first
 * scheduled check, a minute after it was added: a bench that sends for longer publishes it.
 */
export async function benchSubAccount(
  mailplane: Mailplane,
  accountKey: string,
  name: string,
  domainName: string,
  dns?: TestDnsServer,
): Promise<BenchSender> {
  const call = async (path: string, headers: Record<string, string>, body: unknown) => {
    const response = await mailplane.handle({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', ...headers },
      query: new URLSearchParams(),
      rawBody: JSON.stringify(body),
    });
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${response.body}`);
    return JSON.parse(response.body);
  };
  const sub = await call('/account/subaccount', { 'x-account-apikey': accountKey }, { name });
  const domain = await call('/subaccount/domain', { 'x-subaccount-apikey': sub.apiKey }, { name: domainName });
  if (dns) {
    dns.txt(domain.dkim.host, domain.dkim.textValue);
    dns.cname(domain.returnPath.host, domain.returnPath.textValue);
    dns.cname(domain.track.host, domain.track.textValue);
    dns.txt(domain.dmarc.host, domain.dmarc.textValue);
    const verified = await call(`/subaccount/domain/${domain.id}/verify`, { 'x-subaccount-apikey': sub.apiKey }, {});
    if (!verified.verified) throw new Error(`${domainName} did not verify: ${JSON.stringify(verified)}`);
  } else {
    await contextOf(mailplane).store.domains.updateVerification(sub.id, domain.id, {
      dkimVerified: true,
      verified: true,
      updated: 1n,
    });
  }
  return {
    subAccountId: sub.id,
    apiKey: sub.apiKey,
    smtp: { user: sub.smtpAuths[0].username, pass: sub.smtpAuths[0].password },
  };
}
