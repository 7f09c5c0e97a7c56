/**
 * A raw SMTP client over a real socket, for tests that check exact replies (nodemailer hides
 * them, or will not send what an attacker would): one command, one whole (multi-line) reply.
 */
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';

/** One open SMTP connection. */
export interface RawSmtp {
  /** The server's first reply (`220 …`, or a `421` refusal). */
  greeting: string;
  /** Sends one line (CRLF added) and answers the reply, lines joined by `\n`; `''` once closed. */
  command(line: string): Promise<string>;
  /** The next reply, without sending anything (after {@link RawSmtp.send}). */
  reply(): Promise<string>;
  /** Writes raw bytes, waiting while the socket's buffer is full. */
  send(data: string | Buffer): Promise<void>;
  /** Upgrades the connection after a `220` to STARTTLS (any certificate is accepted). */
  startTls(): Promise<void>;
  /** Resolves when the server has closed the connection. */
  closed: Promise<void>;
  close(): void;
}

/** Connects to `host:port` (optionally from `localAddress`, e.g. 127.0.0.2) and reads the greeting. */
export async function rawSmtp(port: number, host = '127.0.0.1', localAddress?: string): Promise<RawSmtp> {
  let socket: Socket | TLSSocket = connect({ port, host, ...(localAddress && { localAddress }) });
  const replies: string[] = [];
  const waiting: Array<(reply: string) => void> = [];
  let partial = '';
  let lines: string[] = [];
  let ended = false;
  let onClosed!: () => void;
  const closed = new Promise<void>((resolve) => (onClosed = resolve));

  const deliver = (reply: string) => {
    const waiter = waiting.shift();
    if (waiter) waiter(reply);
    else replies.push(reply);
  };
  const onData = (data: Buffer) => {
    partial += data.toString('latin1');
    let end: number;
    while ((end = partial.indexOf('\r\n')) >= 0) {
      const line = partial.slice(0, end);
      partial = partial.slice(end + 2);
      lines.push(line);
      // The last line of a reply has a space (or nothing) after its code.
      if (/^\d{3}(?: |$)/.test(line)) {
        deliver(lines.join('\n'));
        lines = [];
      }
    }
  };
  const onEnd = () => {
    ended = true;
    onClosed();
    while (waiting.length > 0) waiting.shift()!('');
  };
  const listen = (s: Socket) => {
    s.on('data', onData);
    s.once('close', onEnd);
    s.on('error', () => {});
  };
  listen(socket);

  const reply = () =>
    replies.length > 0
      ? Promise.resolve(replies.shift()!)
      : ended
        ? Promise.resolve('')
        : new Promise<string>((resolve) => waiting.push(resolve));
  const send = (data: string | Buffer) =>
    new Promise<void>((resolve) => {
      if (ended || socket.destroyed) return resolve();
      if (socket.write(data)) resolve();
      else socket.once('drain', resolve);
    });

  const client: RawSmtp = {
    greeting: await reply(),
    command: async (line) => (await send(`${line}\r\n`), reply()),
    reply,
    send,
    startTls: () =>
      new Promise((resolve, reject) => {
        const plain = socket as Socket;
        plain.off('data', onData);
        plain.off('close', onEnd);
        const secured = tlsConnect({ socket: plain, rejectUnauthorized: false }, () => resolve());
        secured.once('error', reject);
        socket = secured;
        listen(secured);
      }),
    closed,
    close: () => socket.destroy(),
  };
  return client;
}

/** `AUTH PLAIN` with the initial response for `user` and `pass`. */
export const authPlain = (user: string, pass: string) =>
  `AUTH PLAIN ${Buffer.from(`\0${user}\0${pass}`).toString('base64')}`;
