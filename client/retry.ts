/**
 * Retries of the typed client: a `fetch` that sends a request again when the server answered `429`
 * (rate limited) or `503` (storage unavailable), waiting what `Retry-After` asks for, a bounded
 * number of times and never longer than a cap. Only requests that cannot do anything twice are
 * sent again (see {@link isSafeToRetry}).
 *
 * @module
 */

/** How the client retries; every field has a default. */
export interface RetryOptions {
  /** Attempts after the first; `0` turns retries off. Default `2`. */
  retries?: number;
  /**
   * The longest wait before one retry, in milliseconds. An answer whose `Retry-After` asks for more
   * is not retried (it is thrown at once, with `retryAfterMs`), as an earlier retry would be refused
   * again. Default `30000`.
   */
  maxDelayMs?: number;
  /** The first wait when the answer has no `Retry-After`, doubled at each retry. Default `500`. */
  baseDelayMs?: number;
  /** Called before each wait: to log it, or to count retries. */
  onRetry?: (retry: RetryEvent) => void;
}

/** A retry about to happen, as {@link RetryOptions.onRetry} sees it. */
export interface RetryEvent {
  /** The retry's number: `1` for the first. */
  attempt: number;
  /** The status that made it retry: `429` or `503`. */
  status: number;
  /** How long the client waits before sending again, in milliseconds. */
  delayMs: number;
  /** The request's method and URL. */
  method: string;
  url: string;
}

/** The statuses worth a retry: the request was refused or could not be served now, and said so. */
export const RETRY_STATUSES: readonly number[] = [429, 503];

/** The default of {@link RetryOptions.retries}. */
export const DEFAULT_RETRIES = 2;

/** The default of {@link RetryOptions.maxDelayMs}. */
export const DEFAULT_MAX_DELAY_MS = 30_000;

/** The default of {@link RetryOptions.baseDelayMs}. */
export const DEFAULT_BASE_DELAY_MS = 500;

/**
 * The wait a `Retry-After` value asks for, in milliseconds (`0` for a date in the past): either
 * whole seconds (`"12"`) or an HTTP date (`"Wed, 21 Oct 2026 07:28:00 GMT"`). `undefined` when the
 * header is absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only a date with a weekday and GMT, as RFC 9110 writes it: Date.parse reads far more than that.
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * Whether `request` may be sent again after a `status` answer. A `429` is mailplane's rate
 * limiter refusing before anything is done (docs/api-conventions.md, "Rate limits"), so any
 * request may be sent again. A `503` may come after part of the work, so only requests that
 * cannot do anything twice are: reads (`GET`, `HEAD`) and requests carrying an `Idempotency-Key`
 * (the server answers a repeat with the first answer).
 */
export function isSafeToRetry(request: Request, status: number): boolean {
  if (status === 429) return true;
  if (status !== 503) return false;
  return request.method === 'GET' || request.method === 'HEAD' || request.headers.has('idempotency-key');
}

/** Waits `ms`, or rejects with the signal's reason once it aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Wraps `fetch` so that a `429` or `503` answer is retried as {@link RetryOptions} says; the last
 * answer is returned as it came (the caller turns it into an error). The request's body is kept
 * for the retries by cloning the request before each attempt.
 */
export function retryingFetch(
  fetch: (request: Request) => Promise<Response>,
  options: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const retries = Math.max(0, Math.floor(options.retries ?? DEFAULT_RETRIES));
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const baseDelayMs = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      const response = await fetch(attempt > retries ? request : request.clone());
      if (attempt > retries || !RETRY_STATUSES.includes(response.status)) return response;
      if (!isSafeToRetry(request, response.status)) return response;
      const asked = parseRetryAfter(response.headers.get('retry-after'));
      // Without Retry-After: exponential, with jitter so that many clients do not come back together.
      const delayMs = asked ?? Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
      if (delayMs > maxDelayMs) return response;
      // The answer's body is not read: release its connection now rather than when it is collected.
      await response.body?.cancel().catch(() => {});
      options.onRetry?.({ attempt, status: response.status, delayMs, method: request.method, url: request.url });
      await sleep(delayMs, request.signal);
    }
  };
}
