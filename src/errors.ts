/**
 * The error model. Every failure a caller can see is a {@link MailplaneError} with a stable
 * UPPER_SNAKE `code` (for programs) and a `message` (for people); the HTTP layer turns it into
 * a JSON body and the status given here. Anything else that escapes is a bug and becomes a 500.
 */

/** One problem with one field of a request, as carried by {@link ValidationError}. */
export interface FieldIssue {
  /** Dotted path of the field at fault, e.g. `to.0.email`; empty for the body as a whole. */
  path: string;
  /** What is wrong with it, in words. */
  message: string;
}

/** Base class of every error mailplane reports on purpose. */
export class MailplaneError extends Error {
  /** Stable machine-readable code, e.g. `SUBACCOUNT_NOT_FOUND`. */
  readonly code: string;
  /** HTTP status the router answers with. */
  readonly status: number;
  /** Structured extra information that is safe to show to the caller. */
  readonly details?: unknown;

  constructor(status: number, code: string, message: string, options?: { details?: unknown; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.details = options?.details;
  }
}

/** 401: the key header is missing, wrong, or of the wrong kind for the path. */
export class UnauthorizedError extends MailplaneError {
  constructor(code: string, message: string) {
    super(401, code, message);
  }
}

/** 403: a resource with the same name or details already exists, or the action is not allowed. */
export class ForbiddenError extends MailplaneError {
  constructor(code: string, message: string, details?: unknown) {
    super(403, code, message, { details });
  }
}

/** 406: the id in the path is missing, malformed or unknown (the spec's "missing resource id"). */
export class NotFoundError extends MailplaneError {
  constructor(code: string, message: string) {
    super(406, code, message);
  }
}

/** 422: the body or the parameters are not in the required format. */
export class ValidationError extends MailplaneError {
  declare readonly details: FieldIssue[];
  constructor(message: string, issues: FieldIssue[] = [], code = 'VALIDATION_FAILED') {
    super(422, code, message, { details: issues });
  }
}

/** 413: the request body is larger than the configured limit. */
export class PayloadTooLargeError extends MailplaneError {
  constructor(limitBytes: number) {
    super(413, 'PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${limitBytes} bytes`);
  }
}

/**
 * 429: the key has used its allowance of the current window (`createMailplane({ rateLimits })`);
 * the router answers with `Retry-After: retryAfterSeconds`.
 */
export class RateLimitedError extends MailplaneError {
  /** Whole seconds until the window ends and the request may succeed (at least 1). */
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super(429, 'RATE_LIMITED', message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** 503: a dependency (usually the database) is unavailable; the caller may retry later. */
export class UnavailableError extends MailplaneError {
  constructor(message: string, cause?: unknown) {
    super(503, 'SERVICE_UNAVAILABLE', message, { cause });
  }
}

/**
 * Thrown by storage adapters for infrastructure faults (connection lost, constraint the contract
 * did not expect). Expected outcomes, such as a duplicate name, are return values instead.
 */
export class StorageError extends MailplaneError {
  constructor(message: string, cause?: unknown) {
    super(500, 'STORAGE_ERROR', message, { cause });
  }
}
