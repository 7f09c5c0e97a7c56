/**
 * The few `/api/v1` calls the client commands make, over plain `fetch`: a server's error answer
 * becomes a {@link CommandFailure} with its status, code and message, and a server that cannot be
 * reached says so with the URL tried.
 */
import { CommandFailure } from './command.js';
import type { ServerAccess } from './environment.js';
import { parseExact } from './exact-json.js';

/** Which key authorises a call: the account's or a sub-account's (docs/api-conventions.md). */
export type ApiKey = { account: string } | { subAccount: string };

/** One call: its method, path under `/api/v1`, key, query and JSON body. */
export interface ApiCall {
  method?: 'GET' | 'POST' | 'DELETE';
  path: string;
  key: ApiKey;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

/** An error answer of the server: `<METHOD> <path>: <status> <CODE>: <message>`. */
export class ApiError extends CommandFailure {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly path: string,
    detail: string,
  ) {
    super(`${path}: ${status} ${code}: ${detail}`);
    this.name = 'ApiError';
  }
}

/** The `/api/v1` of one server. */
export class Api {
  constructor(readonly baseUrl: string) {}

  /** Makes `call` and resolves with the answer's JSON; rejects with an {@link ApiError} for a non-2xx answer. */
  async call<T>({ method = 'GET', path, key, query = {}, body }: ApiCall): Promise<T> {
    const url = new URL(`${this.baseUrl}/api/v1${path}`);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, `${value}`);
    const headers: Record<string, string> = { accept: 'application/json' };
    if ('account' in key) headers['x-account-apikey'] = key.account;
    else headers['x-subaccount-apikey'] = key.subAccount;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(60_000),
      });
    } catch (error) {
      const cause = (error as Error).cause as { code?: string; message?: string } | undefined;
      const why = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new CommandFailure(`cannot reach ${this.baseUrl} (${why}): is the server running? (mailplane start)`);
    }
    const text = await response.text();
    const json = parseJson(text);
    if (!response.ok) {
      const { code, message } = (json ?? {}) as { code?: unknown; message?: unknown };
      throw new ApiError(
        response.status,
        typeof code === 'string' ? code : 'HTTP_ERROR',
        `${method} ${url.pathname}`,
        typeof message === 'string' ? message : text.slice(0, 200) || response.statusText,
      );
    }
    if (json === undefined) throw new CommandFailure(`${method} ${url.pathname}: the answer is not JSON`);
    return json as T;
  }
}

/** `text` parsed as JSON (long integers kept exact: exact-json.ts), or `undefined`. */
function parseJson(text: string): unknown {
  try {
    return parseExact(text);
  } catch {
    return undefined;
  }
}

/** The account key of `access`, or a failure saying how to give one. */
export function accountKeyOf(access: ServerAccess): string {
  if (access.accountKey === undefined)
    throw new CommandFailure('no account key: set MAILPLANE_ACCOUNT_API_KEY (or pass --key)');
  return access.accountKey;
}

/** A sub-account as `GET /account/subaccount` lists it (the members the CLI uses). */
export interface SubAccountItem {
  id: number;
  name: string;
  apiKey: string;
}

/** A sending domain as the API answers it (the members the CLI uses). */
export interface DomainItem {
  id: number;
  name: string;
  verified: boolean;
  [record: string]: unknown;
}

/** Every sub-account of the account, page by page. */
export async function listSubAccounts(api: Api, accountKey: string): Promise<SubAccountItem[]> {
  const all: SubAccountItem[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await api.call<SubAccountItem[]>({
      path: '/account/subaccount',
      key: { account: accountKey },
      query: { limit: 1000, offset },
    });
    all.push(...page);
    if (page.length < 1000) return all;
  }
}

/** The domain named `name` among those of the sub-account with key `subAccountKey`, or `undefined`. */
export async function findDomain(api: Api, subAccountKey: string, name: string): Promise<DomainItem | undefined> {
  const found = await api.call<DomainItem[]>({
    path: '/subaccount/domain',
    key: { subAccount: subAccountKey },
    query: { search: name, limit: 1000 },
  });
  return found.find((domain) => domain.name === name);
}

/** A domain name as the API stores it: lower case, an internationalised name in its `xn--` form. */
export function normalDomainName(name: string): string {
  const trimmed = name.trim().replace(/\.$/, '');
  try {
    return new URL(`http://${trimmed}`).hostname;
  } catch {
    return trimmed.toLowerCase();
  }
}
