/**
 * What the SMTP client reads and reports: replies (RFC 5321 4.2: a three-digit code, then `-` on
 * every line but the last) and its errors.
 */
import { StringDecoder } from 'node:string_decoder';

/** A whole reply: its code and every line of it, joined with `\n`. */
export interface SmtpReply {
  code: number;
  text: string;
}

/**
 * The code of one reply line and whether it is the reply's last line, or `null` when the line is
 * not an SMTP reply line at all (the server speaks something else).
 */
export function readReplyLine(line: string): { code: number; last: boolean } | null {
  const match = /^([2-5]\d\d)(?:([ -]).*)?$/.exec(line);
  if (!match) return null;
  return { code: Number(match[1]), last: match[2] !== '-' };
}

/** The extensions an EHLO reply offers (RFC 5321 4.1.1.1): upper-case keyword and its parameters. */
export function readExtensions(reply: SmtpReply): Map<string, string> {
  const extensions = new Map<string, string>();
  for (const line of reply.text.split('\n').slice(1)) {
    const keyword = /^\d{3}[- ]([A-Za-z0-9-]+)[ =]?(.*)$/.exec(line);
    if (keyword) extensions.set(keyword[1]!.toUpperCase(), keyword[2]!.trim());
  }
  return extensions;
}

/** Kinds of {@link SmtpError}; the code leads the recorded text, as nodemailer's did. */
export type SmtpErrorCode =
  'ECONNECTION' | 'ETIMEDOUT' | 'ESOCKET' | 'EPROTOCOL' | 'ETLS' | 'EAUTH' | 'EENVELOPE' | 'EREPLY' | 'EBUSY';

/** A failed connection, session step or transaction. */
export class SmtpError extends Error {
  constructor(
    readonly code: SmtpErrorCode,
    message: string,
    /** The server's reply, when the failure is a refusal. */
    readonly reply?: SmtpReply,
  ) {
    super(message);
    this.name = 'SmtpError';
  }

  /** Set when the connection failed before the server answered the transaction's first command. */
  beforeTransaction = false;
}

/** Longest line a server may send; beyond it the peer is not speaking SMTP. */
const MAX_LINE = 65_536;
/**
 * Most bytes and lines one reply may hold. A real EHLO reply is about twenty lines and a few hundred
 * bytes; a server that goes on past these is feeding memory, not answering (an endless `220-`).
 */
export const MAX_REPLY_BYTES = 65_536;
export const MAX_REPLY_LINES = 512;

/** Called as a reply starts arriving and once it is complete (the connection times a trickle between them). */
export interface ReplyProgress {
  started(): void;
  ended(): void;
}

/**
 * Reads replies off the bytes a server sends and hands them out in order, one per `next()` (several
 * may be awaited at once: pipelining). Anything that is not an SMTP reply, or a reply nobody asked
 * for, is reported to `onProblem` (the connection then ends).
 */
export class ReplyReader {
  private decoder = new StringDecoder('utf8');
  private pending = '';
  private lines: string[] = [];
  /** Size of the reply being read, in bytes received (after a reply ends: the characters left over for the next one). */
  private replyBytes = 0;
  private readonly waiters: {
    resolve: (reply: SmtpReply) => void;
    reject: (error: SmtpError) => void;
    toStarttls?: boolean;
  }[] = [];
  /** Set once STARTTLS was answered 220: bytes until the {@link restart} are dropped unread. */
  private discarding = false;

  constructor(
    private readonly onProblem: (error: SmtpError) => void,
    private readonly progress?: ReplyProgress,
  ) {}

  /** Whether a reply is awaited. */
  get waiting(): boolean {
    return this.waiters.length > 0;
  }

  /**
   * The next reply. With `toStarttls`, a 220 ends the plain-text stream: whatever arrives after it
   * until {@link restart} is dropped unread. It was sent before TLS began, and a client must not act
   * on it (RFC 3207 section 6): a man in the middle can inject replies there, and a broken server
   * sends stray text there. The TLS handshake then decides.
   */
  next(toStarttls = false): Promise<SmtpReply> {
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject, toStarttls }));
  }

  /** Rejects every awaited reply with `error`. */
  rejectAll(error: SmtpError): void {
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }

  /** Starts a new byte stream (TLS took over the socket). */
  restart(): void {
    this.decoder = new StringDecoder('utf8');
    this.pending = '';
    this.lines = [];
    this.replyBytes = 0;
    this.discarding = false;
  }

  /** Takes bytes received. */
  feed(chunk: Buffer): void {
    if (this.discarding) return;
    if (this.replyBytes === 0 && chunk.length > 0) this.progress?.started();
    this.replyBytes += chunk.length;
    this.pending += this.decoder.write(chunk);
    for (let end = this.pending.indexOf('\n'); end !== -1; end = this.pending.indexOf('\n')) {
      const line = this.pending.slice(0, end).replace(/\r$/, '');
      this.pending = this.pending.slice(end + 1);
      const read = readReplyLine(line);
      if (!read)
        return this.onProblem(
          new SmtpError('EPROTOCOL', `Invalid reply from the server: ${JSON.stringify(line.slice(0, 200))}`),
        );
      this.lines.push(line);
      if (!read.last) {
        if (this.lines.length >= MAX_REPLY_LINES)
          return this.onProblem(
            new SmtpError('EPROTOCOL', `Invalid reply from the server: more than ${MAX_REPLY_LINES} lines`),
          );
        continue;
      }
      const reply = { code: read.code, text: this.lines.join('\n') };
      this.lines = [];
      const waiter = this.waiters.shift();
      if (waiter?.toStarttls && reply.code === 220) {
        this.discarding = true;
        this.pending = '';
        this.replyBytes = 0;
        this.progress?.ended();
        return waiter.resolve(reply);
      }
      // What is left belongs to the next reply (pipelining): it starts now.
      this.replyBytes = this.pending.length;
      this.progress?.ended();
      if (this.replyBytes > 0) this.progress?.started();
      // A reply nobody asked for is a server giving up on an idle connection ("421 timeout"):
      // kept, it would be read as the answer to the next command.
      if (waiter) waiter.resolve(reply);
      else return this.onProblem(new SmtpError('ECONNECTION', `the server ended the session: ${reply.text}`, reply));
    }
    if (this.pending.length > MAX_LINE)
      return this.onProblem(new SmtpError('EPROTOCOL', 'Invalid reply from the server: a line longer than 64 KiB'));
    if (this.replyBytes > MAX_REPLY_BYTES)
      this.onProblem(
        new SmtpError('EPROTOCOL', `Invalid reply from the server: longer than ${MAX_REPLY_BYTES / 1024} KiB`),
      );
  }
}
