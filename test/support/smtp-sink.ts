/**
 * A controllable SMTP server for delivery tests, on 127.0.0.1 and a real socket: it speaks SMTP
 * itself (so every reply byte is under the test's control: enhanced codes or none, multi-line
 * replies, garbage, a dropped connection, a stall, a failed TLS handshake) and records what it
 * received. STARTTLS works with a self-signed certificate made by openssl at start.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket, createSecureContext, type SecureContext } from 'node:tls';

/** What the sink does at one step: accept (`'ok'`), answer these raw lines, or misbehave. */
export type SinkReply = 'ok' | 'drop' | 'stall' | 'garbage' | string[];

/** The sink's behaviour; unset steps answer normally. */
export interface SinkBehaviour {
  greeting?: SinkReply;
  /** Reply to every RCPT TO (or per recipient address with `rcptFor`). */
  rcpt?: SinkReply;
  /** Replies to RCPT TO by recipient address (lower-case). */
  rcptFor?: Record<string, SinkReply>;
  /** Reply after the message data. */
  data?: SinkReply;
  /** Reply to EHLO instead of the extension list (HELO is still answered). */
  ehlo?: SinkReply;
  /**
   * Offer STARTTLS (default true); `'fail'` answers 220 with plain text behind it in the same
   * packet and then breaks the handshake; `'inject'` answers 220 with a forged `250` behind it in
   * the same packet (a man in the middle's injection) and then completes the handshake; `'refuse'`
   * answers 454.
   */
  starttls?: boolean | 'fail' | 'inject' | 'refuse';
}

/** One message the sink accepted. */
export interface ReceivedMessage {
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
  ehlo: string;
  tls: boolean;
  remoteAddress: string;
}

/** A running sink. */
export interface SmtpSink {
  readonly port: number;
  readonly host: string;
  readonly received: ReceivedMessage[];
  /** Connections accepted so far. */
  readonly connections: number;
  /** Replies withheld so far by a `'stall'` behaviour (the client is waiting on one of them). */
  readonly stalls: number;
  behave(behaviour: SinkBehaviour): void;
  close(): Promise<void>;
}

let certificate: { key: Buffer; cert: Buffer } | null = null;
function selfSigned(): SecureContext {
  if (!certificate) {
    const dir = mkdtempSync(join(tmpdir(), 'sink-cert-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=localhost',
        '-days',
        '2',
        '-keyout',
        join(dir, 'k.pem'),
        '-out',
        join(dir, 'c.pem'),
      ],
      { stdio: 'ignore' },
    );
    certificate = { key: readFileSync(join(dir, 'k.pem')), cert: readFileSync(join(dir, 'c.pem')) };
    rmSync(dir, { recursive: true, force: true });
  }
  return createSecureContext(certificate);
}

const TERMINATOR = Buffer.from('\r\n.\r\n');

/** Starts a sink on 127.0.0.1, an ephemeral port, accepting everything until told otherwise. */
export async function startSmtpSink(
  initial: SinkBehaviour = {},
  listen: { host?: string; port?: number } = {},
): Promise<SmtpSink> {
  let behaviour = initial;
  const received: ReceivedMessage[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  let stalls = 0;
  const secureContext = selfSigned();

  function handle(plain: Socket): void {
    connections += 1;
    sockets.add(plain);
    plain.on('close', () => sockets.delete(plain));
    plain.on('error', () => {});
    let socket: Socket = plain;
    let tls = false;
    let ehlo = '';
    let mailFrom = '';
    let rcptTo: string[] = [];
    let inData = false;
    let buffer: Buffer = Buffer.alloc(0);
    let stalled = false;

    /** Answers `reply` (or `ok` lines); false when the connection was dropped or stalled. */
    const answer = (reply: SinkReply | undefined, ok: string[]): boolean => {
      const r = reply ?? 'ok';
      if (r === 'drop') {
        socket.destroy();
        return false;
      }
      if (r === 'stall') {
        stalled = true;
        stalls += 1;
        return false;
      }
      if (r === 'garbage') {
        socket.write('\u0000\u00ffthis is not SMTP at all\r\n');
        return false;
      }
      socket.write(`${(r === 'ok' ? ok : r).join('\r\n')}\r\n`);
      return true;
    };

    const onLine = (line: string): void => {
      const verb = line.slice(0, 4).toUpperCase();
      const arg = line.slice(5).trim();
      if (verb === 'EHLO' && behaviour.ehlo !== undefined) {
        answer(behaviour.ehlo, []);
      } else if (verb === 'EHLO' || verb === 'HELO') {
        ehlo = arg;
        const offer = behaviour.starttls ?? true;
        const lines = ['250-sink.test', '250-PIPELINING', '250-8BITMIME', '250-SMTPUTF8', '250-ENHANCEDSTATUSCODES'];
        if (offer && !tls) lines.push('250-STARTTLS');
        lines.push('250 SIZE 52428800');
        socket.write(`${lines.join('\r\n')}\r\n`);
      } else if (line.toUpperCase() === 'STARTTLS') {
        if (behaviour.starttls === 'refuse') {
          socket.write('454 4.7.0 TLS not available due to temporary reason\r\n');
          return;
        }
        // One write each, so that what follows the 220 reaches the client in the same read.
        if (behaviour.starttls === 'fail') {
          socket.write('220 2.0.0 Ready to start TLS\r\ngarbage instead of a TLS handshake\r\n');
          setTimeout(() => socket.destroy(), 20);
          return;
        }
        socket.write(
          `220 2.0.0 Ready to start TLS\r\n${behaviour.starttls === 'inject' ? '250 2.0.0 injected\r\n' : ''}`,
        );
        plain.removeListener('data', onData);
        const secure = new TLSSocket(socket, { isServer: true, secureContext });
        secure.on('error', () => {});
        socket = secure;
        tls = true;
        buffer = Buffer.alloc(0);
        secure.on('data', onData);
      } else if (verb === 'MAIL') {
        mailFrom = /<([^>]*)>/.exec(arg)?.[1] ?? '';
        rcptTo = [];
        socket.write('250 2.1.0 Ok\r\n');
      } else if (verb === 'RCPT') {
        const to = (/<([^>]*)>/.exec(arg)?.[1] ?? '').toLowerCase();
        const reply = behaviour.rcptFor?.[to] ?? behaviour.rcpt;
        if (reply === undefined || reply === 'ok') rcptTo.push(to);
        answer(reply, ['250 2.1.5 Ok']);
      } else if (verb === 'DATA') {
        if (rcptTo.length === 0) socket.write('554 5.5.1 No valid recipients\r\n');
        else {
          inData = true;
          socket.write('354 End data with <CR><LF>.<CR><LF>\r\n');
        }
      } else if (verb === 'RSET') {
        mailFrom = '';
        rcptTo = [];
        socket.write('250 2.0.0 Ok\r\n');
      } else if (verb === 'NOOP') socket.write('250 2.0.0 Ok\r\n');
      else if (verb === 'QUIT') {
        socket.write('221 2.0.0 Bye\r\n');
        socket.end();
      } else socket.write('502 5.5.2 Command not recognized\r\n');
    };

    function onData(chunk: Buffer): void {
      if (stalled) return;
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      while (buffer.length > 0 && !stalled) {
        if (inData) {
          const end = buffer.indexOf(TERMINATOR);
          if (end === -1) return;
          const body = buffer.subarray(0, end + 2);
          buffer = buffer.subarray(end + TERMINATOR.length);
          inData = false;
          const raw = Buffer.from(body.toString('latin1').replace(/^\.\./gm, '.'), 'latin1');
          const message = { mailFrom, rcptTo, raw, ehlo, tls, remoteAddress: plain.remoteAddress ?? '' };
          if (answer(behaviour.data, ['250 2.0.0 Ok: queued'])) received.push(message);
          rcptTo = [];
          continue;
        }
        const newline = buffer.indexOf('\r\n');
        if (newline === -1) return;
        const line = buffer.subarray(0, newline).toString();
        buffer = buffer.subarray(newline + 2);
        const before = socket;
        onLine(line);
        if (socket !== before) return; // switched to TLS: the rest belongs to the handshake
      }
    }

    plain.on('data', onData);
    answer(behaviour.greeting, ['220 sink.test ESMTP ready']);
  }

  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(listen.port ?? 0, listen.host ?? '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    host: listen.host ?? '127.0.0.1',
    received,
    get connections() {
      return connections;
    },
    get stalls() {
      return stalls;
    },
    behave: (b) => {
      behaviour = b;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
