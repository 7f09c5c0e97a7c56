/** A mailplane instance on a real database, driven through its router as a client would. */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createMailplane, silentLogger, type Mailplane, type HttpRequest, type MailplaneStore } from 'mailplane';
import { openTestStore, type StoreKind } from './databases.js';

/** Secret used by test instances. */
export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123456789';

/**
 * The domain settings every test instance starts from: DKIM keys of 1024 bits. Generating an RSA-2048
 * key took 100-400 ms of CPU here, and the suite creates over 600 domains; a 1024-bit key takes
 * a few. Signing and verifying work the same. A test that is about keys sets its own size (the library's
 * default is 2048: test/unit/domain-config.test.ts).
 */
export const TEST_DOMAINS = { dkimKeyBits: 1024 } as const;

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

/**
 * What {@link createTestApi} passes to `createMailplane` beside the store, secret and logger it sets;
 * `wrapStore` puts a wrapper of the test's own around the fresh store (a fault at a chosen write).
 */
export type TestApiOptions = Partial<Parameters<typeof createMailplane>[0]> & {
  wrapStore?: (store: MailplaneStore) => MailplaneStore;
};

/** Creates an instance on a fresh database of `kind` with one account. */
export async function createTestApi(kind: StoreKind, { wrapStore, ...options }: TestApiOptions = {}): Promise<TestApi> {
  const { store, url, close } = await openTestStore(kind);
  const mailplane = createMailplane({
    store: wrapStore ? wrapStore(store) : store,
    secret: TEST_SECRET,
    logger: silentLogger,
    ...options,
    domains: { ...TEST_DOMAINS, ...options.domains },
  });
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
  // The instance first: a test may have started its job runner, which would otherwise go on polling a
  // dropped database (for the rest of the test process, when files share one), and its services
  // hold threads. Closing it closes the store; closing an instance twice is fine.
  const closeAll = async () => {
    await mailplane.close();
    await close();
  };
  return { mailplane, accountKey: apiKey, url, call, close: closeAll };
}

/** A sub-account as `POST /account/subaccount` answers it (the key and SMTP password shown once). */
export interface CreatedSubAccount {
  id: number;
  accountId: number;
  apiKey: string;
  name: string;
  smtpAuths: Array<{ username: string; password: string }>;
}

/**
 * Creates a sub-account named `name` of `accountKey` (the test account by default) through the API.
 * Throws when the API refuses it: the tests that use it are about something else.
 */
export async function createSubAccount(
  api: Pick<TestApi, 'call' | 'accountKey'>,
  name: string,
  accountKey = api.accountKey,
): Promise<CreatedSubAccount> {
  const created = await api.call('POST', '/account/subaccount', { account: accountKey, body: { name } });
  if (created.status !== 201) throw new Error(`sub-account ${name}: ${created.status} ${created.text}`);
  return created.body;
}

/**
 * The instance of the test that is running, as {@link useTestApi} gives it: each property reads the
 * current test's {@link TestApi}, so one handle declared beside the tests serves every test.
 */
export interface TestApiHandle extends TestApi {
  /** {@link createSubAccount} on the current test's instance. */
  createSubAccount(name: string, accountKey?: string): Promise<CreatedSubAccount>;
}

/** Options for every test, or a function that builds them afresh for each (a manual clock, a logger, a port). */
export type TestApiOptionsSource = TestApiOptions | (() => TestApiOptions | Promise<TestApiOptions>);

/**
 * Registers the hooks that give each test of the enclosing `describe` (or file) an instance on a
 * fresh database of `kind`, and close it after the test: the handle answers the current one.
 * With `scope: 'describe'` one instance serves all the tests of the block (beforeAll/afterAll).
 *
 * In the same block, hooks registered before this call run before the instance is created (so
 * `options` may read a server they start) and, as vitest runs after-hooks in reverse, their
 * after-hooks run once the instance is closed; hooks registered after it see the instance (to
 * create senders, say) and their after-hooks run before it closes.
 */
export function useTestApi(
  kind: StoreKind,
  options: TestApiOptionsSource = {},
  { scope = 'test' }: { scope?: 'test' | 'describe' } = {},
): TestApiHandle {
  const slot = new TestApiSlot(kind, options);
  const [before, after] = scope === 'test' ? [beforeEach, afterEach] : [beforeAll, afterAll];
  before(() => slot.open());
  after(() => slot.release());
  return slot;
}

/** Holds the current test's instance between the hooks of {@link useTestApi}. */
class TestApiSlot implements TestApiHandle {
  #current: TestApi | undefined;

  constructor(
    private readonly kind: StoreKind,
    private readonly options: TestApiOptionsSource,
  ) {}

  async open(): Promise<void> {
    const options = typeof this.options === 'function' ? await this.options() : this.options;
    this.#current = await createTestApi(this.kind, options);
  }

  async release(): Promise<void> {
    const api = this.#current;
    this.#current = undefined;
    // Undefined when opening failed: vitest reports that failure, not this one.
    await api?.close();
  }

  get mailplane(): Mailplane {
    return this.current.mailplane;
  }

  get accountKey(): string {
    return this.current.accountKey;
  }

  get url(): string {
    return this.current.url;
  }

  // Arrow properties, so a test may pass `api.call` around as a function.
  readonly call = (method: string, path: string, options?: CallOptions): Promise<CallResult> =>
    this.current.call(method, path, options);

  readonly close = (): Promise<void> => this.current.close();

  readonly createSubAccount = (name: string, accountKey?: string): Promise<CreatedSubAccount> =>
    createSubAccount(this.current, name, accountKey);

  private get current(): TestApi {
    if (!this.#current) throw new Error('useTestApi: there is an instance only while a test of its block runs');
    return this.#current;
  }
}
