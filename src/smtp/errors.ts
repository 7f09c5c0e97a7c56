/**
 * How mailplane's SMTP listeners answer errors: one table from {@link ErrorKind} to reply. What the
 * HTTP API refuses as the client's to fix is refused for good (5xx: the client must not retry the
 * same message); a fault of mailplane or of what it depends on is a transient 451, so the client
 * keeps the message and tries again.
 */
import { errorKindOf, type ErrorKind, type MailplaneError } from '../errors.js';

/** An error smtp-server answers as `<responseCode> <text>`. */
export function smtpReply(responseCode: number, text: string): Error & { responseCode: number } {
  return Object.assign(new Error(text), { responseCode });
}

/** How errors of one kind are answered over SMTP. */
export interface SmtpErrorReply {
  /** The basic reply code, e.g. 550. */
  code: number;
  /** The enhanced status code (RFC 3463), e.g. `5.7.0`. */
  enhanced: string;
  /**
   * The text after the codes; absent: the error's own `CODE: message`, as the API answers it. Faults
   * answer a fixed text: their own message is for the log.
   */
  text?: string;
  /** A failure of mailplane rather than of the client: logged by whoever answers it. */
  fault: boolean;
}

/** The client's to fix: refused for good, with the API's code and message. */
const REFUSED: SmtpErrorReply = { code: 550, enhanced: '5.7.0', fault: false };
/** Ours: the client keeps the message and retries. */
const TEMPORARY: SmtpErrorReply = {
  code: 451,
  enhanced: '4.3.0',
  text: 'Temporary failure, try again later',
  fault: true,
};

/** The SMTP reply of every {@link ErrorKind}. */
export const SMTP_ERROR_REPLIES: Readonly<Record<ErrorKind, SmtpErrorReply>> = {
  'bad-request': REFUSED,
  unauthorized: REFUSED,
  forbidden: REFUSED,
  conflict: REFUSED,
  'not-found': REFUSED,
  gone: REFUSED,
  'unknown-route': REFUSED,
  'method-not-allowed': REFUSED,
  invalid: REFUSED,
  'too-large': REFUSED,
  // Over the allowance for now: waiting is the fix, so the client retries later (RFC 5321 4.2.5).
  'rate-limited': { code: 450, enhanced: '4.7.0', fault: false },
  unavailable: TEMPORARY,
  storage: TEMPORARY,
  internal: TEMPORARY,
};

/** The table's entry for `error` (kind `internal` for anything that is no mailplane error). */
export function smtpErrorReply(error: unknown): SmtpErrorReply {
  return SMTP_ERROR_REPLIES[errorKindOf(error)];
}

/** The reply smtp-server sends for `error`, e.g. `550 5.7.0 UNKNOWN_IP_POOL: no IP pool named "x"`. */
export function smtpReplyFor(error: unknown): Error & { responseCode: number } {
  const rule = smtpErrorReply(error);
  const own = error as MailplaneError;
  return smtpReply(rule.code, `${rule.enhanced} ${rule.text ?? `${own.code}: ${own.message}`}`);
}
