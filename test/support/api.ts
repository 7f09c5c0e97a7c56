/** A mailplane instance on a real database, driven through its router as a client would. */
import { createMailplane, silentLogger, type Mailplane, type HttpRequest } from 'mailplane';
import { openTestStore, type StoreKind } from './databases.js';

/** Secret used by test instances. */
export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123456789';

/** What a test request may carry. */
export interface CallOptions {
  /** X-Account-ApiKey value. */
  account?: string;
  /** X-SubAccount-ApiKey value. */
  sub?: string;
  body?: unknown;
  /** Sent as the raw body instead of `body` (for malformed JSON and size tests). */
  raw?: string;
  query?: Record<string, string | number>;
  headers?: Record<string, string>;
}

/** A response with the body parsed (lossy for ns integers; use `text` for exact digits). */
export interface CallResult {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
  body: any;
  text: string;
  /** Response headers, lower-case names. */
  headers: Record<string, string>;
}

/** A test instance with its account key and a call helper. */
export interface TestApi {
  mailplane: Mailplane;
  accountKey: string;
  /** The database's URL, for a second store or instance on the same data. */
  url: string;
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  close(): Promise<void>;
}

/** Creates an instance on a fresh database of `kind` with one account. */
export async function createTestApi(
  kind: StoreKind,
  options: Partial<Parameters<typeof createMailplane>[0]> = {},
): Promise<TestApi> {
  const { store, url, close } = await openTestStore(kind);
  const mailplane = createMailplane({ store, secret: TEST_SECRET, logger: silentLogger, ...options });
  const { apiKey } = await mailplane.createAccount({ name: 'test' });
  const call = async (method: string, path: string, o: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...o.headers };
    if (o.account !== undefined) headers['x-account-apikey'] = o.account;
    if (o.sub !== undefined) headers['x-subaccount-apikey'] = o.sub;
    const request: HttpRequest = {
      method,
      path,
      headers,
      query: new URLSearchParams(Object.entries(o.query ?? {}).map(([k, v]): [string, string] => [k, String(v)])),
      rawBody: o.raw ?? (o.body === undefined ? '' : JSON.stringify(o.body)),
    };
    const response = await mailplane.handle(request);
    return { status: response.status, body: JSON.parse(response.body), text: response.body, headers: response.headers };
  };
  return { mailplane, accountKey: apiKey, url, call, close };
}
