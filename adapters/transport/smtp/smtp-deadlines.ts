/**
 * The deadlines of mailplane's SMTP client. Each is a deadline, not an idle timer: bytes trickling
 * in do not move it, so a receiver that answers one byte at a time cannot hold a transaction (and
 * the delivery slot under it) for longer than these allow. `docs/security.md` lists the defaults.
 */
import { withDefaults } from '../../../src/model/defaults.js';

/** How long each step of an SMTP session may take. */
export interface SmtpDeadlines {
  /** The TCP connection (and an implicit-TLS handshake) (default 30 s). */
  connectionTimeoutMs: number;
  /** The server's greeting after connecting, and a STARTTLS handshake (default 30 s). */
  greetingTimeoutMs: number;
  /** Each command's whole reply: EHLO, STARTTLS, AUTH, MAIL FROM, RCPT TO, DATA, RSET (default 5 min, RFC 5321 4.5.3.2). */
  commandTimeoutMs: number;
  /**
   * The message's transfer and the reply after its final dot (default 10 min, RFC 5321 4.5.3.2),
   * plus the time the message's size takes at {@link minDataRateBytesPerSecond}.
   */
  dataTimeoutMs: number;
  /** The slowest transfer taken: a server that reads the message more slowly runs into the data deadline. */
  minDataRateBytesPerSecond: number;
  /** One whole mail transaction, from MAIL FROM to the reply after the data (default 15 min). */
  transactionTimeoutMs: number;
  /**
   * From a reply's first byte to its last (default 30 s). A server writes its reply at once; one
   * that trickles it (`250-` and a byte every few seconds) is dropped here, long before the
   * command's own deadline.
   */
  replyCompletionTimeoutMs: number;
  /** How long a pooled connection may sit idle before it is closed (default 5 min). */
  socketTimeoutMs: number;
}

/** The defaults for delivery on the public internet. */
export const defaultSmtpDeadlines: SmtpDeadlines = {
  connectionTimeoutMs: 30_000,
  greetingTimeoutMs: 30_000,
  commandTimeoutMs: 300_000,
  dataTimeoutMs: 600_000,
  minDataRateBytesPerSecond: 10_240,
  transactionTimeoutMs: 900_000,
  replyCompletionTimeoutMs: 30_000,
  socketTimeoutMs: 300_000,
};

/** `partial`'s deadlines over the defaults (unset and `undefined` fields take the default). */
export function resolveSmtpDeadlines(partial: Partial<SmtpDeadlines> = {}): SmtpDeadlines {
  return withDefaults(defaultSmtpDeadlines, partial);
}

/** The three timeouts a transport's options may name outside `deadlines`, as nodemailer's transports do. */
export interface SmtpTimeoutOptions {
  connectionTimeoutMs?: number;
  greetingTimeoutMs?: number;
  socketTimeoutMs?: number;
  /** The other deadlines of a session (docs/security.md lists the defaults). */
  deadlines?: Partial<SmtpDeadlines>;
}

/** A transport's deadlines: `deadlines`, with the timeouts named beside it taking precedence. */
export function transportDeadlines(options: SmtpTimeoutOptions): Partial<SmtpDeadlines> {
  const { connectionTimeoutMs, greetingTimeoutMs, socketTimeoutMs } = options;
  return {
    ...options.deadlines,
    ...(connectionTimeoutMs !== undefined && { connectionTimeoutMs }),
    ...(greetingTimeoutMs !== undefined && { greetingTimeoutMs }),
    ...(socketTimeoutMs !== undefined && { socketTimeoutMs }),
  };
}

/** The data deadline of a message of `bytes`: the fixed part plus its transfer at the slowest rate taken. */
export function dataDeadlineMs(deadlines: SmtpDeadlines, bytes: number): number {
  return deadlines.dataTimeoutMs + Math.ceil((bytes / Math.max(1, deadlines.minDataRateBytesPerSecond)) * 1000);
}
