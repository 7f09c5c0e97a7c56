/**
 * mailplane's SMTP client (adapters/transport/smtp) against a real independent server, smtp-server,
 * on loopback: authentication, implicit TLS and STARTTLS, pipelining on and off, refusals per
 * recipient, connection reuse, and a server that closes an idle connection.
 */
import { createServer, type Socket } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SmtpPool } from '../../adapters/transport/smtp/smtp-pool.js';
import { smartHostTransport } from '../../adapters/transport/smtp/index.js';
import {
  outboundMessage,
  type DeliveryRoute,
  type OutboundMessage,
  type Transport,
} from '../../src/delivery/transport.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

interface Received {
  from: string;
  to: string[];
  raw: Buffer;
  user?: string;
  secure: boolean;
}

interface Server {
  port: number;
  received: Received[];
  connections: number;
  close(): Promise<void>;
}

const servers: Array<Pick<Server, 'close'>> = [];
const transports: Transport[] = [];
afterEach(async () => {
  for (const transport of transports.splice(0)) await transport.close();
  for (const server of servers.splice(0)) await server.close();
});

/** The fault sink of the delivery tests, closed after each test. */
async function startSink(behaviour: Parameters<typeof startSmtpSink>[0]): Promise<SmtpSink> {
  const sink = await startSmtpSink(behaviour);
  servers.push(sink);
  return sink;
}

async function startServer(options: Partial<SMTPServerOptions> = {}): Promise<Server> {
  const received: Received[] = [];
  let connections = 0;
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onAuth(auth, _session, callback) {
      if (auth.username === 'relay-user' && auth.password === 'correct horse') callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          ...(typeof session.user === 'string' && { user: session.user }),
          secure: session.secure,
        });
        callback();
      });
    },
    ...options,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  const entry: Server = {
    port: typeof address === 'object' && address ? address.port : 0,
    received,
    get connections() {
      return connections;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  servers.push(entry);
  return entry;
}

const route: DeliveryRoute = { ipId: null, ipPoolId: null, tpspId: null };

/**
 * A message with the lines SMTP must escape (a dot alone, lines starting with dots), in two parts
 * as composed messages come: the header block, and a body that begins with a dot.
 */
function message(n: number, to: string[] = [`r${n}@rcpt.example`]): OutboundMessage {
  const head = Buffer.from(`From: a@sender.test\r\nTo: ${to[0]}\r\nSubject: ${n}\r\n\r\n`);
  const body = Buffer.from(`.hello ${n}\r\n.\r\n..dots\r\n.end\r\n`);
  return outboundMessage(`m${n}`, { from: `b+m${n}@rp.sender.test`, to }, [head, body]);
}

function relay(port: number, options: Partial<Parameters<typeof smartHostTransport>[0]> = {}): Transport {
  const transport = smartHostTransport({
    host: '127.0.0.1',
    port,
    rejectUnauthorized: false,
    ehloName: 'client.test',
    ...options,
  });
  transports.push(transport);
  return transport;
}

describe('the SMTP client', () => {
  it('authenticates with AUTH PLAIN over STARTTLS and the server receives the exact message', async () => {
    const server = await startServer();
    const result = await relay(server.port, { auth: { user: 'relay-user', pass: 'correct horse' } }).send(
      message(1),
      route,
    );
    expect(result).toMatchObject({ kind: 'delivered', smtpCode: 250 });
    expect(server.received).toHaveLength(1);
    expect(server.received[0]).toMatchObject({
      from: 'b+m1@rp.sender.test',
      to: ['r1@rcpt.example'],
      user: 'relay-user',
      secure: true,
    });
    expect(server.received[0]!.raw.equals(message(1).raw)).toBe(true);
  });

  it('authenticates with AUTH LOGIN when that is all the server offers', async () => {
    const server = await startServer({ authMethods: ['LOGIN'] });
    const result = await relay(server.port, { auth: { user: 'relay-user', pass: 'correct horse' } }).send(
      message(2),
      route,
    );
    expect(result.kind).toBe('delivered');
    expect(server.received[0]!.user).toBe('relay-user');
  });

  it('a refused login is a soft failure (the relay is misconfigured, the recipient is fine) and sends nothing', async () => {
    const server = await startServer();
    const result = await relay(server.port, { auth: { user: 'relay-user', pass: 'wrong' } }).send(message(3), route);
    expect(result).toMatchObject({ kind: 'soft', smtpCode: null });
    expect(result.text).toMatch(/^EAUTH: .*535/);
    expect(server.received).toHaveLength(0);
  });

  it('never sends credentials in the clear: without STARTTLS on offer the login is not attempted', async () => {
    let attempted = false;
    const server = await startServer({
      hideSTARTTLS: true,
      allowInsecureAuth: true,
      onAuth: (_auth, _session, callback) => ((attempted = true), callback(null, { user: 'x' })),
    });
    const result = await relay(server.port, { auth: { user: 'relay-user', pass: 'correct horse' } }).send(
      message(4),
      route,
    );
    expect(result.kind).toBe('soft');
    expect(result.text).toMatch(/ETLS/);
    expect(attempted).toBe(false);
    expect(server.received).toHaveLength(0);
  });

  it('speaks implicit TLS to a port-465 style server', async () => {
    const server = await startServer({ secure: true });
    const result = await relay(server.port, { secure: true }).send(message(5), route);
    expect(result.kind).toBe('delivered');
    expect(server.received[0]!.secure).toBe(true);
  });

  it('without PIPELINING it goes command by command; a refused copy recipient does not stop the message', async () => {
    const server = await startServer({
      hidePIPELINING: true,
      onRcptTo: (address, _session, callback) =>
        address.address.startsWith('nobody')
          ? callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }))
          : callback(),
    });
    const transport = relay(server.port);
    const delivered = await transport.send(message(6, ['r6@rcpt.example', 'nobody@rcpt.example']), route);
    expect(delivered.kind).toBe('delivered');
    expect(server.received[0]!.to).toEqual(['r6@rcpt.example']);
    const refused = await transport.send(message(7, ['nobody@rcpt.example']), route);
    expect(refused).toMatchObject({ kind: 'hard', smtpCode: 550 });
    expect(refused.text).toContain('No such user');
    // The refusal reset the session: the connection goes on to the next message.
    expect((await transport.send(message(8), route)).kind).toBe('delivered');
    expect(server.connections).toBe(1);
  });

  it.each([
    ['with', false],
    ['without', true],
  ])(
    'a 421 to a recipient %s PIPELINING is the answer, not the close that follows it',
    async (_label, hidePIPELINING) => {
      // smtp-server closes the connection right after its 421 (RFC 5321 3.8), so the replies after
      // it (the next RCPT TO, DATA) never come.
      const server = await startServer({
        hidePIPELINING,
        onRcptTo: (address, _session, callback) =>
          address.address.startsWith('later')
            ? callback(Object.assign(new Error('4.7.0 Try again later'), { responseCode: 421 }))
            : callback(),
      });
      const transport = relay(server.port);
      for (const to of [['later@rcpt.example'], ['r50@rcpt.example', 'later@rcpt.example', 'r51@rcpt.example']]) {
        const deferred = await transport.send(message(50, to), route);
        expect(deferred).toMatchObject({ kind: 'soft', smtpCode: 421, enhancedCode: '4.7.0' });
        expect(deferred.text).toContain('Try again later');
      }
      expect(server.received).toHaveLength(0);
      // The closed connection is replaced for the next message.
      expect((await transport.send(message(52), route)).kind).toBe('delivered');
    },
  );

  it('reuses at most maxConnections connections for many messages', async () => {
    const server = await startServer();
    const transport = relay(server.port, { maxConnections: 2 });
    const results = await Promise.all(Array.from({ length: 30 }, (_, n) => transport.send(message(100 + n), route)));
    expect(results.every((r) => r.kind === 'delivered')).toBe(true);
    expect(server.received).toHaveLength(30);
    expect(server.connections).toBeLessThanOrEqual(2);
  });

  it('a connection the server closed while idle is replaced, and the next message is delivered', async () => {
    let closed = 0;
    const server = await startServer({ socketTimeout: 200, onClose: () => void closed++ });
    const transport = relay(server.port);
    expect((await transport.send(message(9), route)).kind).toBe('delivered');
    // The server drops the idle connection after 200 ms: waited for, since a loaded machine may take
    // longer than any fixed pause. Its close event comes once the client has ended its side too.
    await vi.waitFor(() => expect(closed).toBe(1), { timeout: 10_000, interval: 20 });
    expect((await transport.send(message(10), route)).kind).toBe('delivered');
    expect(server.received).toHaveLength(2);
    expect(server.connections).toBe(2);
  });

  it('refuses an envelope address that would inject a command, before anything is sent', async () => {
    const server = await startServer();
    const result = await relay(server.port).send(
      { ...message(11), envelope: { from: 'b@rp.sender.test', to: ['x@rcpt.example>\r\nRCPT TO:<y@evil.example'] } },
      route,
    );
    expect(result.kind).toBe('soft');
    expect(result.text).toMatch(/EENVELOPE/);
    expect(server.received).toHaveLength(0);
  });

  it('on a pipelining server, the next message goes out right behind the final dot, before its reply', async () => {
    let transcript = '';
    let release: (() => void) | undefined;
    // A scripted server that answers in order but withholds the first message's final reply (and
    // so everything after it) until the test releases it.
    const server = createServer((socket: Socket) => {
      socket.write('220 scripted ESMTP\r\n');
      let pending = '';
      let inData = false;
      let messages = 0;
      let held: string[] | null = null;
      const reply = (line: string) => (held ? held.push(line) : socket.write(line));
      socket.on('data', (chunk: Buffer) => {
        transcript += chunk.toString('latin1');
        pending += chunk.toString('latin1');
        for (;;) {
          if (inData) {
            const end = pending.indexOf('\r\n.\r\n');
            if (end === -1) return;
            pending = pending.slice(end + 5);
            inData = false;
            messages += 1;
            if (messages === 1) {
              held = [];
              release = () => {
                socket.write(['250 2.0.0 first queued\r\n', ...held!].join(''));
                held = null;
              };
            } else reply('250 2.0.0 second queued\r\n');
            continue;
          }
          const end = pending.indexOf('\r\n');
          if (end === -1) return;
          const verb = pending.slice(0, 4).toUpperCase();
          pending = pending.slice(end + 2);
          if (verb === 'EHLO') reply('250-scripted\r\n250 PIPELINING\r\n');
          else if (verb === 'DATA') {
            inData = true;
            reply('354 go ahead\r\n');
          } else if (verb === 'QUIT') reply('221 bye\r\n');
          else reply('250 2.1.0 ok\r\n');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const pool = new SmtpPool({
      host: '127.0.0.1',
      port,
      name: 'client.test',
      maxConnections: 1,
      connectionTimeoutMs: 2000,
      greetingTimeoutMs: 2000,
      socketTimeoutMs: 5000,
    });
    try {
      const first = pool.send(message(20).envelope, message(20).raw);
      const second = pool.send(message(21).envelope, message(21).raw);
      // The second message's commands arrive while the first one's reply is still withheld.
      await vi.waitFor(() => expect(transcript).toContain('MAIL FROM:<b+m21@rp.sender.test>'), { timeout: 10_000 });
      release!();
      expect((await first).reply.text).toBe('250 2.0.0 first queued');
      expect((await second).reply.text).toBe('250 2.0.0 second queued');
    } finally {
      pool.close();
      server.close();
    }
  });

  it('greets with HELO when EHLO is refused, and sends without extensions', async () => {
    const sink = await startSink({ ehlo: ['502 5.5.2 Command not recognized'] });
    const result = await relay(sink.port).send(message(30), route);
    expect(result.kind).toBe('delivered');
    expect(sink.received[0]).toMatchObject({ ehlo: 'client.test', tls: false, rcptTo: ['r30@rcpt.example'] });
  });

  it('goes on in plain text when STARTTLS is offered but refused, unless TLS is required', async () => {
    const sink = await startSink({ starttls: 'refuse' });
    expect((await relay(sink.port).send(message(31), route)).kind).toBe('delivered');
    expect(sink.received[0]!.tls).toBe(false);
    const required = await relay(sink.port, { requireTLS: true }).send(message(32), route);
    expect(required).toMatchObject({ kind: 'soft', smtpCode: 454 });
    expect(sink.received).toHaveLength(1);
  });

  it('drops plain text that follows the 220 to STARTTLS: a forged reply is never read, a broken handshake is a TLS failure', async () => {
    // A forged "250" behind the 220, in the same packet, would answer the EHLO sent over TLS.
    const injected = await startSink({ starttls: 'inject' });
    expect((await relay(injected.port).send(message(33), route)).kind).toBe('delivered');
    expect(injected.received[0]!.tls).toBe(true);
    // Stray text behind the 220, then no handshake: a TLS failure (which the MX transport answers
    // by going on in plain text), not a protocol error.
    const broken = await startSink({ starttls: 'fail' });
    const failed = await relay(broken.port).send(message(34), route);
    expect(failed).toMatchObject({ kind: 'soft', smtpCode: null });
    expect(failed.text).toMatch(/^ETLS: TLS handshake failed/);
  });

  it('when no connection to a server opens, the messages waiting for it fail together', async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
    const port = (server.address() as { port: number }).port;
    const pool = new SmtpPool({
      host: '127.0.0.1',
      port,
      name: 'client.test',
      maxConnections: 2,
      connectionTimeoutMs: 2000,
      greetingTimeoutMs: 2000,
      socketTimeoutMs: 2000,
    });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, n) => pool.send(message(40 + n).envelope, message(40 + n).raw)),
    );
    expect(results.every((r) => r.status === 'rejected' && /closed/i.test(String(r.reason)))).toBe(true);
    // Two openings were tried (the limit), not one per message.
    expect(connections).toBe(2);
    pool.close();
  });
});
