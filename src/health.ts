/**
 * Health endpoints for load balancers and orchestrators: `GET /healthz` says the process answers,
 * `GET /readyz` says this node can do its work (the store answers and its schema is current, the
 * instance secret matches the database's, and the job runner polls when this node runs workers).
 */
import type { JobRunnerStatus } from './jobs/types.js';
import type { HttpHandler, HttpResponse } from './http/types.js';
import type { MailplaneStore } from './store/index.js';

/** The paths {@link createHealthHandler} answers, relative to where it is mounted. */
export const HEALTH_PATHS: readonly string[] = ['/healthz', '/readyz'];

/** How long `/readyz` waits for the store before it calls it unreachable. */
export const READINESS_TIMEOUT_MS = 5_000;

/** A runner that has not finished a claim round for this long (or 5 poll intervals) is stuck. */
const STALE_RUNNER_MS = 60_000;

/** What {@link Mailplane.readiness} reports; `GET /readyz` answers it as JSON. */
export interface Readiness {
  ready: boolean;
  /** Why the node is not ready (the first failing check), in plain words. */
  reason?: string;
  /** Each check's state: `ok`, `off` (workers not run here), or what is wrong. */
  checks: { store: string; secret: string; jobRunner: string };
}

/** What {@link checkReadiness} looks at. */
export interface ReadinessSources {
  store: MailplaneStore;
  /** The secret check: resolves when the stored check value matches (or there is no setting store). */
  secret: () => Promise<void>;
  /** The job runner's status when this node runs workers (`start()` was called), else null. */
  runner: () => JobRunnerStatus | null;
  timeoutMs?: number;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Runs `work`, rejecting after `ms` (a store whose server does not answer may never settle). */
async function within<T>(ms: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function storeState(store: MailplaneStore, timeoutMs: number): Promise<string> {
  try {
    const answer = await within(timeoutMs, () =>
      store.ready ? store.ready() : store.accounts.first().then(() => ({ ready: true as const })),
    );
    return answer.ready ? 'ok' : answer.reason;
  } catch (error) {
    return `unreachable: ${message(error)}`;
  }
}

async function secretState(sources: ReadinessSources, timeoutMs: number): Promise<string> {
  try {
    await within(timeoutMs, sources.secret);
    return 'ok';
  } catch (error) {
    return message(error);
  }
}

function runnerState(status: JobRunnerStatus | null): string {
  if (status === null) return 'off';
  if (!status.polling) return 'the job runner has stopped';
  const staleMs = Math.max(STALE_RUNNER_MS, 5 * status.pollIntervalMs);
  if (status.sinceLastRoundMs !== null && status.sinceLastRoundMs > staleMs) {
    return `the job runner has not polled for ${Math.round(status.sinceLastRoundMs / 1000)} s`;
  }
  return 'ok';
}

/** Checks the store, the secret and the job runner; never throws. */
export async function checkReadiness(sources: ReadinessSources): Promise<Readiness> {
  const timeoutMs = sources.timeoutMs ?? READINESS_TIMEOUT_MS;
  const store = await storeState(sources.store, timeoutMs);
  // The secret check reads the store: skip it when the store is down, its reason is the store's.
  const secret = store === 'ok' ? await secretState(sources, timeoutMs) : 'unchecked';
  const jobRunner = runnerState(sources.runner());
  const checks = { store, secret, jobRunner };
  const failing = [
    store === 'ok' ? undefined : `store: ${store}`,
    secret === 'ok' || secret === 'unchecked' ? undefined : `secret: ${secret}`,
    jobRunner === 'ok' || jobRunner === 'off' ? undefined : jobRunner,
  ].find((reason) => reason !== undefined);
  return failing === undefined ? { ready: true, checks } : { ready: false, reason: failing, checks };
}

const json = (status: number, body: unknown): HttpResponse => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  body: JSON.stringify(body),
});

/**
 * The handler of `GET /healthz` (200 `{"status":"ok"}` while the process answers) and
 * `GET /readyz` (200 `{"status":"ready","checks":…}`, or 503 `{"code":"NOT_READY","message":…,"checks":…}`);
 * `HEAD` works too. Mount it where the load balancer looks, e.g. `app.get(['/healthz', '/readyz'], toExpress(mailplane.handleHealth))`.
 */
export function createHealthHandler(readiness: () => Promise<Readiness>): HttpHandler {
  return async (request) => {
    const path = request.path.replace(/\/+$/, '');
    if (!HEALTH_PATHS.includes(path))
      return json(404, { code: 'NOT_FOUND', message: 'no such health endpoint: use /healthz or /readyz' });
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return {
        ...json(405, { code: 'METHOD_NOT_ALLOWED', message: `${request.method} is not allowed here: use GET` }),
        headers: { allow: 'GET, HEAD', 'content-type': 'application/json; charset=utf-8' },
      };
    }
    if (path === '/healthz') return json(200, { status: 'ok' });
    const answer = await readiness();
    return answer.ready
      ? json(200, { status: 'ready', checks: answer.checks })
      : json(503, { code: 'NOT_READY', message: `not ready: ${answer.reason}`, checks: answer.checks });
  };
}
