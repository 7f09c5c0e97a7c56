/**
 * The error the typed client throws for every answer that is not a success: the API's JSON error
 * body (`{code, message, details?}`, docs/api-conventions.md) with the HTTP status and the request
 * id to quote when asking the operator.
 *
 * @module
 */

/** What {@link MailplaneApiError} is built from. */
export interface MailplaneApiErrorInit {
  /** The HTTP status, e.g. `422`. */
  status: number;
  /** The API's stable UPPER_SNAKE code, e.g. `VALIDATION_FAILED`. */
  code: string;
  /** What went wrong, in plain words. */
  message: string;
  /** Per-problem details when the API gives them (the fields of a `422`). */
  details?: unknown;
  /** The `X-Request-Id` of the answer, when it carried one. */
  requestId?: string;
  /** The wait the answer asked for (`Retry-After`, in milliseconds), on a `429` or `503`. */
  retryAfterMs?: number;
  /** The method and URL of the request, for the error's message. */
  request?: { method: string; url: string };
}

/**
 * An answer of the mailplane API that is not a success, after the client's retries. Compare
 * {@link MailplaneApiError.code} (stable) rather than the message (plain words that may change).
 *
 * @example
 * ```ts
 * try {
 *   await mailplane.GET('/account/subaccount/{subaccount_id}', { params: { path: { subaccount_id: 999 } } });
 * } catch (error) {
 *   if (error instanceof MailplaneApiError && error.code === 'SUBACCOUNT_NOT_FOUND') console.log('no such sub-account');
 *   else throw error;
 * }
 * ```
 */
export class MailplaneApiError extends Error {
  override readonly name = 'MailplaneApiError';
  /** The HTTP status, e.g. `422`. */
  readonly status: number;
  /** The API's stable UPPER_SNAKE code; `UNEXPECTED_RESPONSE` when the body was not the API's JSON error (a proxy's page). */
  readonly code: string;
  /** Per-problem details when the API gives them (the fields of a `422`). */
  readonly details: unknown;
  /** The `X-Request-Id` of the answer, to find it in the server's log. */
  readonly requestId: string | undefined;
  /** The wait the answer asked for (`Retry-After`, in milliseconds), on a `429` or `503`. */
  readonly retryAfterMs: number | undefined;

  /** Builds the error; the client builds it with {@link apiErrorFromResponse}. */
  constructor(init: MailplaneApiErrorInit) {
    const where = init.request ? ` (${init.request.method} ${init.request.url})` : '';
    super(`${init.status} ${init.code}: ${init.message}${where}`);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** Whether `body` is the API's error body. */
function isErrorBody(body: unknown): body is { code: string; message: string; details?: unknown } {
  if (body === null || typeof body !== 'object') return false;
  const { code, message } = body as Record<string, unknown>;
  return typeof code === 'string' && typeof message === 'string';
}

/**
 * The {@link MailplaneApiError} of a failed answer to `request` (its method and URL; the query is
 * left out of the message, as it may carry addresses): `body` is what openapi-fetch read from it (the
 * parsed JSON, or the text when it was not JSON). `retryAfterMs` is the answer's `Retry-After`, read
 * by the caller (see `parseRetryAfter`).
 */
export function apiErrorFromResponse(
  request: { method: string; url: string },
  response: Response,
  body: unknown,
  retryAfterMs: number | undefined,
): MailplaneApiError {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const common = { status: response.status, requestId, retryAfterMs, request: describe(request) };
  if (isErrorBody(body)) {
    return new MailplaneApiError({ ...common, code: body.code, message: body.message, details: body.details });
  }
  const text = typeof body === 'string' ? body.trim().slice(0, 200) : '';
  return new MailplaneApiError({
    ...common,
    code: 'UNEXPECTED_RESPONSE',
    message: `the answer was not the API's JSON error${text === '' ? '' : `: ${text}`}`,
  });
}

/** The method and the URL of `request` without its query (which may carry addresses). */
function describe(request: { method: string; url: string }): { method: string; url: string } {
  return { method: request.method, url: request.url.replace(/[?#].*$/s, '') };
}
