/**
 * The error model. Every failure a caller can see is a {@link MailplaneError} with a
 * {@link ErrorKind} (what went wrong, for the edges), a stable UPPER_SNAKE `code` (for programs)
 * and a `message` (for people). Nothing here knows a protocol: the HTTP status of each kind is in
 * src/http/errors.ts, the SMTP reply in src/smtp/errors.ts. Anything else that escapes is a bug
 * and is answered as kind `internal`.
 */

/**
 * What kind of failure an error is. The edges map each kind once: `HTTP_ERROR_RULES` (src/http)
 * and `SMTP_ERROR_REPLIES` (src/smtp).
 */
export type ErrorKind =
  /** The request itself could not be read (a target that is no URL, a body stream that failed). */
  | 'bad-request'
  /** The credentials are missing, wrong, or of the wrong kind for the operation. */
  | 'unauthorized'
  /** The action is not allowed in the current state (a blocked sub-account, an IP still in a pool). */
  | 'forbidden'
  /** A resource with the same name or details already exists (the spec's "duplicate"). */
  | 'conflict'
  /** A resource the request names (usually by id) does not exist, or is not the caller's. */
  | 'not-found'
  /** The resource exists, but the part asked for was removed for good (a received message's raw copy). */
  | 'gone'
  /** No operation answers this path. */
  | 'unknown-route'
  /** The path exists, but not with this method. */
  | 'method-not-allowed'
  /** The body or the parameters are not in the required format. */
  | 'invalid'
  /** The request is larger than the configured limit. */
  | 'too-large'
  /** The caller used its allowance of the current window. */
  | 'rate-limited'
  /** A dependency (usually the database) cannot be reached now; retrying later may succeed. */
  | 'unavailable'
  /** The storage failed in a way its contract does not expect. */
  | 'storage'
  /** A fault inside mailplane (a bug); the details are logged, never answered. */
  | 'internal';

/** Every {@link ErrorKind}, in a stable order (for tables and their tests). */
export const ERROR_KINDS: readonly ErrorKind[] = [
  'bad-request',
  'unauthorized',
  'forbidden',
  'conflict',
  'not-found',
  'gone',
  'unknown-route',
  'method-not-allowed',
  'invalid',
  'too-large',
  'rate-limited',
  'unavailable',
  'storage',
  'internal',
];

/** One problem with one field of a request, as carried by {@link ValidationError}. */
export interface FieldIssue {
  /** Dotted path of the field at fault, e.g. `to.0.email`; empty for the body as a whole. */
  path: string;
  /** What is wrong with it, in words. */
  message: string;
}

/** Base class of every error mailplane reports on purpose. */
export class MailplaneError extends Error {
  /** What kind of failure this is; the edges answer by kind. */
  readonly kind: ErrorKind;
  /** Stable machine-readable code, e.g. `SUBACCOUNT_NOT_FOUND`. */
  readonly code: string;
  /** Structured extra information that is safe to show to the caller. */
  readonly details?: unknown;

  constructor(kind: ErrorKind, code: string, message: string, options?: { details?: unknown; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.kind = kind;
    this.code = code;
    this.details = options?.details;
  }
}

/** The kind of any thrown value: its own for a {@link MailplaneError}, `internal` for anything else. */
export function errorKindOf(error: unknown): ErrorKind {
  return error instanceof MailplaneError ? error.kind : 'internal';
}

/** `bad-request`: the request could not be read at all (answered 400 over HTTP). */
export class BadRequestError extends MailplaneError {
  constructor(code: string, message: string, cause?: unknown) {
    super('bad-request', code, message, { cause });
  }
}

/** `unauthorized`: the key header is missing, wrong, or of the wrong kind for the path. */
export class UnauthorizedError extends MailplaneError {
  constructor(code: string, message: string) {
    super('unauthorized', code, message);
  }
}

/** `forbidden`: the action is not allowed (a blocked sub-account, a resource still in use). */
export class ForbiddenError extends MailplaneError {
  constructor(code: string, message: string, details?: unknown) {
    super('forbidden', code, message, { details });
  }
}

/** `conflict`: a resource with the same name or details already exists. */
export class ConflictError extends MailplaneError {
  constructor(code: string, message: string, details?: unknown) {
    super('conflict', code, message, { details });
  }
}

/** `not-found`: the id in the path is missing, malformed or unknown (the spec's "missing resource id"). */
export class NotFoundError extends MailplaneError {
  constructor(code: string, message: string) {
    super('not-found', code, message);
  }
}

/** `gone`: the resource exists, but what was asked of it was removed for good (not kept, or deleted by retention). */
export class GoneError extends MailplaneError {
  constructor(code: string, message: string) {
    super('gone', code, message);
  }
}

/** `unknown-route`: no operation is served at the path. */
export class RouteNotFoundError extends MailplaneError {
  constructor(message: string) {
    super('unknown-route', 'ROUTE_NOT_FOUND', message);
  }
}

/** `method-not-allowed`: the path is served, with other methods (`allowed`). */
export class MethodNotAllowedError extends MailplaneError {
  /** The methods the path is served with. */
  readonly allowed: readonly string[];
  constructor(method: string, allowed: readonly string[]) {
    super('method-not-allowed', 'METHOD_NOT_ALLOWED', `${method} is not allowed here`);
    this.allowed = allowed;
  }
}

/** `invalid`: the body or the parameters are not in the required format. */
export class ValidationError extends MailplaneError {
  declare readonly details: FieldIssue[];
  constructor(message: string, issues: FieldIssue[] = [], code = 'VALIDATION_FAILED') {
    super('invalid', code, message, { details: issues });
  }
}

/** `too-large`: the request body is larger than the configured limit. */
export class PayloadTooLargeError extends MailplaneError {
  constructor(limitBytes: number) {
    super('too-large', 'PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${limitBytes} bytes`);
  }
}

/**
 * `rate-limited`: the key has used its allowance of the current window
 * (`createMailplane({ rateLimits })`); the API answers with `Retry-After: retryAfterSeconds`.
 */
export class RateLimitedError extends MailplaneError {
  /** Whole seconds until the window ends and the request may succeed (at least 1). */
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number, code = 'RATE_LIMITED') {
    super('rate-limited', code, message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * `unavailable`: a dependency (usually the database) cannot be reached now; the caller may retry
 * later. The message is for the log: the edges answer a fixed text, so it may name hosts and ports.
 */
export class UnavailableError extends MailplaneError {
  constructor(message: string, cause?: unknown) {
    super('unavailable', 'SERVICE_UNAVAILABLE', message, { cause });
  }
}

/**
 * `storage`: an infrastructure fault of a storage adapter (a constraint the contract did not
 * expect, a broken file). Expected outcomes, such as a duplicate name, are return values instead.
 * The message is for the log only: the edges answer it as an internal error.
 */
export class StorageError extends MailplaneError {
  constructor(message: string, cause?: unknown) {
    super('storage', 'STORAGE_ERROR', message, { cause });
  }
}

/**
 * The database was set up with another instance secret than this node's: stored keys, passwords
 * and links made by the other nodes could not be read or checked here, so the node refuses to
 * start. Kind `internal`: it is a deployment fault, never a caller's.
 */
export class SecretMismatchError extends MailplaneError {
  constructor() {
    super(
      'internal',
      'SECRET_MISMATCH',
      'this database was set up with another secret: start every node on it with the same secret (stored keys and passwords cannot be read with this one)',
    );
  }
}

/** One bad option of `createMailplane`, as carried by {@link MailplaneOptionsError}. */
export interface OptionIssue {
  /** Dotted path of the option, e.g. `rateLimits.requestsPerMinute`. */
  path: string;
  /** What was given, in words (a secret's length, never its value). */
  received: string;
  /** What the option accepts. */
  expected: string;
}

/**
 * `createMailplane` was given options it cannot run with. One error names every bad option, what
 * was given and what is accepted, so one run reveals them all. Kind `internal`: it is the host
 * program's fault, never a caller's.
 */
export class MailplaneOptionsError extends MailplaneError {
  declare readonly details: OptionIssue[];
  constructor(issues: OptionIssue[]) {
    super(
      'internal',
      'INVALID_OPTIONS',
      [
        `createMailplane: ${issues.length === 1 ? 'one option is' : `${issues.length} options are`} not valid:`,
        ...issues.map((issue) => `  - ${issue.path}: got ${issue.received}; expected ${issue.expected}`),
      ].join('\n'),
      { details: issues },
    );
  }
}
