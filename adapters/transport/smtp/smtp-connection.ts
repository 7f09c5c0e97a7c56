/**
 * One SMTP client connection (RFC 5321): greeting, EHLO (HELO when refused), STARTTLS (RFC 3207),
 * AUTH PLAIN or LOGIN (RFC 4954), then any number of mail transactions, pipelined (RFC 2920) when
 * the server offers it. The message is written as prepared slices (src: dot-stuffing.ts) in one
 * `writev`: no per-byte stream transform runs on the event loop, which is what a 100 KB message
 * cost most through nodemailer's client.
 *
 * Faults never throw anything but {@link SmtpError} (smtp-protocol.ts): a reply the server gave (`reply` set), or what
 * went wrong without one (timeout, closed connection, garbage, failed TLS handshake).
 */
import type { Socket } from 'node:net';
import { dataPayload, messageLength, type MessageBytes } from './dot-stuffing.js';
import { dataDeadlineMs, resolveSmtpDeadlines, type SmtpDeadlines } from './smtp-deadlines.js';
import { readExtensions, ReplyReader, SmtpError, type SmtpErrorCode, type SmtpReply } from './smtp-protocol.js';
import { openSocket, upgradeToTls, type SocketOptions } from './smtp-socket.js';

/** How to reach, greet and log in to one server, and the deadlines of each step (smtp-deadlines.ts). */
export interface SmtpConnectionOptions extends Omit<SocketOptions, 'connectionTimeoutMs'>, Partial<SmtpDeadlines> {
  /** Never upgrade with STARTTLS (a host whose TLS is known to be broken). */
  ignoreTLS?: boolean;
  /** Fail unless the session is encrypted (implicit TLS or a successful STARTTLS). */
  requireTLS?: boolean;
  /** EHLO name. */
  name: string;
  auth?: { user: string; pass: string };
}

/** The SMTP envelope of one transaction. */
export interface SmtpEnvelope {
  from: string;
  to: string[];
}

/** What the server said to one transaction. */
export interface SmtpTransaction {
  /** The reply to each RCPT TO, in envelope order (empty when MAIL FROM was refused). */
  recipients: { address: string; reply: SmtpReply }[];
  /** The reply that ended the transaction: after the data, or the refusal of MAIL FROM or DATA. */
  reply: SmtpReply;
}

const isPositive = (reply: SmtpReply) => reply.code >= 200 && reply.code < 300;
/** The 421 among `replies`, if the server said it is closing the channel (RFC 5321 3.8). */
const closingReply = (replies: readonly SmtpReply[]) => replies.find((reply) => reply.code === 421);
/** A command's name for an error message: never its argument, nor an AUTH exchange's lines (they carry the password). */
const commandVerb = (line: string) =>
  /^(EHLO|HELO|STARTTLS|AUTH|MAIL FROM|RCPT TO|DATA|RSET|QUIT)\b/i.exec(line)?.[1]?.toUpperCase() ??
  'the AUTH exchange';
// An address goes into a command line: CR, LF or angle brackets would inject commands.
const UNSAFE_ADDRESS = /[\r\n<>\s]/;
const NON_ASCII = /[^\x00-\x7f]/;

/** One connection; use through {@link SmtpPool}, one transaction at a time. */
export class SmtpConnection {
  private socket: Socket | null = null;
  private readonly deadlines: SmtpDeadlines;
  /** Runs from a reply's first byte to its last: a server trickling its reply is dropped. */
  private trickle: NodeJS.Timeout | undefined;
  private readonly replies = new ReplyReader((error) => this.fail(error), {
    started: () => {
      clearTimeout(this.trickle);
      const ms = this.deadlines.replyCompletionTimeoutMs;
      this.trickle = setTimeout(
        () =>
          this.fail(
            new SmtpError('ETIMEDOUT', `Reply not complete ${ms} ms after it started (the server trickles it)`),
          ),
        ms,
      );
    },
    ended: () => clearTimeout(this.trickle),
  });
  private failure: SmtpError | null = null;
  private readonly extensions = new Map<string, string>();
  private closeListeners: (() => void)[] = [];
  /** Whether the session runs over TLS. */
  encrypted = false;
  /** Transactions started on this connection. */
  transactions = 0;

  constructor(private readonly options: SmtpConnectionOptions) {
    // The name goes into a command line: nothing but printable ASCII without spaces.
    this.options = { ...options, name: options.name.replace(/[^\x21-\x7e]/g, '') || 'localhost' };
    this.deadlines = resolveSmtpDeadlines(options);
  }

  /** Whether the connection can take a transaction. */
  get usable(): boolean {
    return this.socket !== null && this.failure === null;
  }

  /** Calls `listener` once when the connection is closed, whatever closed it. */
  onClose(listener: () => void): void {
    if (this.failure) listener();
    else this.closeListeners.push(listener);
  }

  /** Connects, reads the greeting, says EHLO, upgrades to TLS and authenticates as configured. */
  async open(): Promise<void> {
    const o = this.options;
    await this.connectSocket();
    const greeting = await this.withTimeout(
      this.nextReply(),
      this.deadlines.greetingTimeoutMs,
      'Greeting never received',
    );
    if (greeting.code !== 220) throw this.refused('greeting', greeting);
    await this.hello();
    if (!this.encrypted && !o.ignoreTLS && this.extensions.has('STARTTLS')) {
      const reply = await this.command('STARTTLS', { toStarttls: true });
      if (reply.code === 220) {
        await this.upgrade();
        await this.hello();
      } else if (o.requireTLS) throw this.refused('STARTTLS', reply, 'ETLS');
    }
    if (o.requireTLS && !this.encrypted)
      throw this.fail(new SmtpError('ETLS', 'the server does not offer STARTTLS and TLS is required'));
    if (o.auth) await this.authenticate(o.auth);
  }

  /** Whether the server takes commands in groups (RFC 2920). */
  get pipelining(): boolean {
    return this.extensions.has('PIPELINING');
  }

  /**
   * Runs one mail transaction. Refusals are returned; only a broken connection or a bad envelope
   * throws. After a refusal the connection is reset and stays usable.
   *
   * `onWritten` is called once the message and its final dot are written, before the server's
   * reply: on a pipelining connection the next transaction may start then, its MAIL FROM, RCPT TO
   * and DATA going out right behind the dot (RFC 2920 allows the message content to lead a group),
   * which saves one round trip per message. Replies are read in order, so each still gets its own.
   */
  send(envelope: SmtpEnvelope, message: MessageBytes, onWritten?: () => void): Promise<SmtpTransaction> {
    const ms = this.deadlines.transactionTimeoutMs;
    return this.withTimeout(this.transact(envelope, message, onWritten), ms, 'Transaction not finished');
  }

  private async transact(
    envelope: SmtpEnvelope,
    message: MessageBytes,
    onWritten?: () => void,
  ): Promise<SmtpTransaction> {
    const addresses = [envelope.from, ...envelope.to];
    if (addresses.some((a) => UNSAFE_ADDRESS.test(a)))
      throw new SmtpError('EENVELOPE', 'an envelope address holds a line break, a space or an angle bracket');
    let parameters = this.extensions.has('SIZE') ? ` SIZE=${messageLength(message)}` : '';
    if (addresses.some((a) => NON_ASCII.test(a))) {
      if (!this.extensions.has('SMTPUTF8'))
        throw new SmtpError('EENVELOPE', 'the server does not accept internationalised addresses (no SMTPUTF8)', {
          code: 553,
          text: '553 5.6.7 (mailplane) the server does not offer SMTPUTF8, which this address needs',
        });
      parameters += ' SMTPUTF8';
    }
    this.transactions += 1;
    const commands = [
      `MAIL FROM:<${envelope.from}>${parameters}`,
      ...envelope.to.map((to) => `RCPT TO:<${to}>`),
      'DATA',
    ];
    const pipelining = this.pipelining;
    const pipelined = pipelining ? this.commands(commands) : [this.command(commands[0]!)];
    // Awaited below in order, up to a 421 that leaves the rest unawaited: a failure is reported by the first reply.
    Promise.all(pipelined).catch(() => undefined);
    try {
      await pipelined[0];
    } catch (error) {
      if (error instanceof SmtpError) error.beforeTransaction = true;
      throw error;
    }
    const replies = await this.repliesUntilClosing(pipelined);
    if (!pipelining && isPositive(replies[0]!)) {
      for (const line of commands.slice(1, -1)) {
        if (closingReply(replies)) break;
        replies.push(...(await this.repliesUntilClosing([this.command(line)])));
      }
      if (!closingReply(replies) && replies.slice(1).some(isPositive)) replies.push(await this.command('DATA'));
    }
    const [mail, ...rest] = replies as [SmtpReply, ...SmtpReply[]];
    if (!isPositive(mail)) return this.refusedTransaction([], mail);
    // Recipients after a 421 were never answered: the server's closing answers for them too.
    const closing = closingReply(replies);
    const recipients = envelope.to.map((address, i) => ({ address, reply: rest[i] ?? closing! }));
    const data = rest[envelope.to.length];
    if (!recipients.some((r) => isPositive(r.reply))) {
      // A pipelining server may still have said 354: end the empty message so the session stays in step.
      if (data?.code === 354)
        await this.writeAndRead(['.\r\n'], this.deadlines.commandTimeoutMs, 'No reply after an empty message');
      return this.refusedTransaction(recipients, recipients[0]!.reply);
    }
    if (!data || data.code !== 354) return this.refusedTransaction(recipients, data ?? closing ?? mail);
    // Corked until the next message's commands (written synchronously by onWritten) are in too:
    // the message and what follows it leave in one write.
    const socket = this.socket!;
    socket.cork();
    const final = this.writeAndRead(
      dataPayload(message),
      dataDeadlineMs(this.deadlines, messageLength(message)),
      'No reply after the message data',
    );
    try {
      onWritten?.();
    } finally {
      socket.uncork();
    }
    return { recipients, reply: await final };
  }

  /**
   * The replies to commands written together, in order, up to a 421: the server is closing the
   * channel (RFC 5321 3.8), so the replies after it never come and the connection is closed at once.
   * The 421 is then the answer, not the close that follows it.
   */
  private async repliesUntilClosing(pending: Promise<SmtpReply>[]): Promise<SmtpReply[]> {
    const replies: SmtpReply[] = [];
    for (const pendingReply of pending) {
      const reply = await pendingReply;
      replies.push(reply);
      if (reply.code === 421) {
        this.close();
        break;
      }
    }
    return replies;
  }

  /** Says QUIT and closes (quietly: a connection that is already gone is simply closed). */
  async quit(): Promise<void> {
    if (this.usable) {
      await Promise.race([
        this.command('QUIT').catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, 1000).unref()),
      ]);
    }
    this.close();
  }

  /** Closes at once; a transaction under way fails. */
  close(): void {
    this.fail(new SmtpError('ECONNECTION', 'Connection closed'));
  }

  private async refusedTransaction(
    recipients: SmtpTransaction['recipients'],
    reply: SmtpReply,
  ): Promise<SmtpTransaction> {
    // The refusal is the answer even if the server hangs up now; a connection that cannot reset is closed.
    const reset = await this.command('RSET').catch(() => null);
    if (!reset || !isPositive(reset)) this.close();
    return { recipients, reply };
  }

  private refused(step: string, reply: SmtpReply, code: SmtpErrorCode = 'EREPLY'): SmtpError {
    return this.fail(new SmtpError(code, `${step} refused: ${reply.text}`, reply));
  }

  private async connectSocket(): Promise<void> {
    try {
      this.attach(await openSocket({ ...this.options, connectionTimeoutMs: this.deadlines.connectionTimeoutMs }));
    } catch (error) {
      throw this.fail(error as SmtpError);
    }
    this.encrypted = Boolean(this.options.secure);
  }

  private readonly onData = (chunk: Buffer) => this.replies.feed(chunk);
  private readonly onError = (error: Error) => this.fail(new SmtpError('ESOCKET', error.message));
  private readonly onEnd = () => this.fail(new SmtpError('ECONNECTION', 'Connection closed unexpectedly'));
  private readonly onTimeout = () => {
    this.fail(
      new SmtpError(
        'ETIMEDOUT',
        this.replies.waiting ? `Timeout: nothing received in ${this.deadlines.socketTimeoutMs} ms` : 'Idle timeout',
      ),
    );
  };

  private attach(socket: Socket): void {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.setTimeout(this.deadlines.socketTimeoutMs);
    socket.on('data', this.onData);
    socket.on('error', this.onError);
    socket.on('close', this.onEnd);
    socket.on('timeout', this.onTimeout);
  }

  private detach(socket: Socket): void {
    socket.setTimeout(0);
    socket.removeListener('data', this.onData);
    socket.removeListener('error', this.onError);
    socket.removeListener('close', this.onEnd);
    socket.removeListener('timeout', this.onTimeout);
  }

  /** STARTTLS: the plain socket is handed to TLS (src: smtp-socket.ts). */
  private async upgrade(): Promise<void> {
    const plain = this.socket!;
    this.detach(plain);
    try {
      const secure = await upgradeToTls(plain, {
        ...this.options,
        connectionTimeoutMs: this.deadlines.connectionTimeoutMs,
        handshakeTimeoutMs: this.deadlines.greetingTimeoutMs,
      });
      this.replies.restart();
      this.attach(secure);
      this.encrypted = true;
    } catch (error) {
      throw this.fail(error as SmtpError);
    }
  }

  private async hello(): Promise<void> {
    let reply = await this.command(`EHLO ${this.options.name}`);
    this.extensions.clear();
    if (isPositive(reply)) {
      for (const [keyword, value] of readExtensions(reply)) this.extensions.set(keyword, value);
      return;
    }
    reply = await this.command(`HELO ${this.options.name}`);
    if (!isPositive(reply)) throw this.refused('HELO', reply);
  }

  private async authenticate(auth: { user: string; pass: string }): Promise<void> {
    const mechanisms = (this.extensions.get('AUTH') ?? '').toUpperCase().split(/\s+/);
    const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
    let reply: SmtpReply;
    if (mechanisms.includes('PLAIN')) {
      reply = await this.command(`AUTH PLAIN ${b64(`\u0000${auth.user}\u0000${auth.pass}`)}`);
    } else if (mechanisms.includes('LOGIN')) {
      reply = await this.command('AUTH LOGIN');
      if (reply.code === 334) reply = await this.command(b64(auth.user));
      if (reply.code === 334) reply = await this.command(b64(auth.pass));
    } else {
      throw this.fail(new SmtpError('EAUTH', 'the server offers neither AUTH PLAIN nor AUTH LOGIN'));
    }
    if (reply.code !== 235) throw this.refused('AUTH', reply, 'EAUTH');
  }

  /** Sends one command (`toStarttls`: STARTTLS, see {@link ReplyReader.next}). */
  private command(line: string, { toStarttls = false } = {}): Promise<SmtpReply> {
    return this.commands([line], toStarttls)[0]!;
  }

  /**
   * Writes `lines` in one packet and returns a promise of each reply, in order (pipelining), each
   * bounded by the command deadline.
   */
  private commands(lines: string[], toStarttls = false): Promise<SmtpReply>[] {
    const ms = this.deadlines.commandTimeoutMs;
    const promises = lines.map((line) =>
      this.withTimeout(this.nextReply(toStarttls), ms, `No reply to ${commandVerb(line)}`),
    );
    this.write([Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8')]);
    return promises;
  }

  private writeAndRead(chunks: (Buffer | string)[], ms: number, what: string): Promise<SmtpReply> {
    const reply = this.withTimeout(this.nextReply(), ms, what);
    this.write(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));
    return reply;
  }

  private write(chunks: Buffer[]): void {
    const socket = this.socket;
    if (!socket || this.failure) return; // the waiters were (or are about to be) rejected
    socket.cork();
    for (const chunk of chunks) socket.write(chunk);
    socket.uncork();
  }

  private nextReply(toStarttls = false): Promise<SmtpReply> {
    return this.failure ? Promise.reject(this.failure) : this.replies.next(toStarttls);
  }

  private withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.fail(new SmtpError('ETIMEDOUT', `${message} (${ms} ms)`))), ms);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }

  /** Ends the connection with `error` (the first failure wins): every waiting reply rejects with it. */
  private fail(error: SmtpError): SmtpError {
    if (this.failure) return this.failure;
    this.failure = error;
    clearTimeout(this.trickle);
    this.replies.rejectAll(error);
    const socket = this.socket;
    if (socket) {
      this.detach(socket);
      socket.on('error', () => {});
      socket.destroy();
    }
    for (const listener of this.closeListeners.splice(0)) listener();
    return error;
  }
}
