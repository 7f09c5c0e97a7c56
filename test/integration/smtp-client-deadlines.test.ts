/**
 * The SMTP client's deadlines and caps against servers that hold it (issue 25): each deadline is a
 * deadline, not an idle timer that a trickle of bytes keeps resetting; replies are capped in size
 * and lines; a pool that stops making progress hands waiting messages back instead of keeping them.
 * Real TCP servers on loopback, scripted line by line.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { SmtpDeadlines } from '../../adapters/transport/smtp/smtp-deadlines.js';
import { SmtpError } from '../../adapters/transport/smtp/smtp-protocol.js';
import { SmtpPool, type SmtpPoolOptions } from '../../adapters/transport/smtp/smtp-pool.js';
import { startHostileMx, type HostileMx } from '../support/hostile-mx.js';

/** Answers each command line the client sends; `greeting` is written on connect. */
type Script = { greeting?: string; onLine: (line: string, socket: Socket) => void };

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function scriptedServer(script: Script): Promise<number> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => sockets.delete(socket));
    if (script.greeting) socket.write(script.greeting);
    let buffered = '';
    let inData = false;
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (let end = buffered.indexOf('\r\n'); end !== -1; end = buffered.indexOf('\r\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            script.onLine('.', socket);
          }
          continue;
        }
        if (line.toUpperCase() === 'DATA') inData = true;
        script.onLine(line, socket);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return (server.address() as { port: number }).port;
}

/** A plain server that answers every command at once (no PIPELINING unless asked). */
const polite = (line: string, socket: Socket, extensions = '250 SIZE 1000000') => {
  const verb = line.slice(0, 4).toUpperCase();
  if (verb === 'EHLO') socket.write(`250-test\r\n${extensions}\r\n`);
  else if (verb === 'DATA') socket.write('354 go ahead\r\n');
  else if (verb === 'QUIT') socket.end('221 bye\r\n');
  else socket.write('250 ok\r\n');
};

const message = Buffer.from('From: a@sender.test\r\nTo: b@rcpt.test\r\nSubject: hi\r\n\r\nHello\r\n');
const envelope = { from: 'a@sender.test', to: ['b@rcpt.test'] };

function pool(port: number, deadlines: Partial<SmtpDeadlines> & Partial<SmtpPoolOptions> = {}): SmtpPool {
  return new SmtpPool({
    host: '127.0.0.1',
    port,
    name: 'client.test',
    maxConnections: 2,
    connectionTimeoutMs: 2_000,
    greetingTimeoutMs: 2_000,
    socketTimeoutMs: 60_000,
    ...deadlines,
  });
}

/** The failure of a send through `p`, with how long it took. */
async function failure(p: SmtpPool, to = envelope): Promise<{ error: SmtpError; ms: number }> {
  const started = performance.now();
  try {
    await p.send(to, message);
  } catch (error) {
    p.close();
    if (!(error instanceof SmtpError)) throw error;
    return { error, ms: performance.now() - started };
  }
  p.close();
  throw new Error('the send succeeded');
}

describe('SMTP client deadlines', () => {
  it('drops a server that trickles its reply, whose bytes keep an idle timer alive', async () => {
    const drip: HostileMx = await startHostileMx('drip', '127.0.0.1', 0, { dripMs: 100 });
    servers.push(drip);
    const { error, ms } = await failure(pool(drip.port, { replyCompletionTimeoutMs: 1_000 }));
    expect(error.code).toBe('ETIMEDOUT');
    expect(error.message).toMatch(/trickles/);
    expect(ms).toBeLessThan(10_000);
    await expect.poll(() => drip.open, { timeout: 5_000 }).toBe(0);
  });

  it("bounds each command's reply as a whole, however the bytes arrive", async () => {
    const drip: HostileMx = await startHostileMx('drip', '127.0.0.1', 0, { dripMs: 100 });
    servers.push(drip);
    const { error, ms } = await failure(pool(drip.port, { commandTimeoutMs: 1_000, replyCompletionTimeoutMs: 60_000 }));
    expect(error.message).toMatch(/No reply to EHLO/);
    expect(ms).toBeLessThan(10_000);
  });

  it('ends a greeting that never ends at the reply cap, and a 1 MB banner line at the line cap', async () => {
    const endless: HostileMx = await startHostileMx('endless', '127.0.0.1', 0);
    const banner: HostileMx = await startHostileMx('banner', '127.0.0.1', 0);
    servers.push(endless, banner);
    expect((await failure(pool(endless.port))).error.message).toMatch(
      /EPROTOCOL|more than 512 lines|longer than 64 KiB/,
    );
    expect((await failure(pool(banner.port))).error.message).toMatch(/a line longer than 64 KiB/);
    // What the server wrote before the client hung up: the cap and what was on the wire, not the 400 MB of the issue.
    expect(endless.bytesSent).toBeLessThan(8 * 1024 * 1024);
  });

  it('gives the data its deadline: a server that says 354 and then nothing', async () => {
    const port = await scriptedServer({
      greeting: '220 ok\r\n',
      onLine: (line, socket) => (line === '.' ? undefined : polite(line, socket)),
    });
    const { error, ms } = await failure(pool(port, { dataTimeoutMs: 800 }));
    expect(error.message).toMatch(/No reply after the message data/);
    expect(ms).toBeLessThan(10_000);
  });

  it('bounds the whole transaction, each of whose replies comes in time', async () => {
    // 400 ms per reply, each within the 1 s command deadline; 30 recipients make 12.8 s in all, far
    // beyond the 1.5 s deadline and the bound a loaded machine might need.
    const port = await scriptedServer({
      greeting: '220 ok\r\n',
      onLine: (line, socket) => {
        if (/^(MAIL|RCPT)/i.test(line)) setTimeout(() => !socket.destroyed && socket.write('250 ok\r\n'), 400);
        else polite(line, socket);
      },
    });
    const to = { from: envelope.from, to: Array.from({ length: 30 }, (_, i) => `b${i}@rcpt.test`) };
    const { error, ms } = await failure(pool(port, { commandTimeoutMs: 1_000, transactionTimeoutMs: 1_500 }), to);
    expect(error.message).toMatch(/Transaction not finished/);
    expect(ms).toBeLessThan(8_000);
  });

  it('opens two connections to a host that has never finished a transaction, and hands waiting messages back when it stalls', async () => {
    const tarpit: HostileMx = await startHostileMx('tarpit', '127.0.0.1', 0);
    servers.push(tarpit);
    const p = pool(tarpit.port, { maxConnections: 10, greetingTimeoutMs: 30_000, stallTimeoutMs: 500 });
    const sends = Array.from({ length: 6 }, () =>
      p.send(envelope, message).then(
        () => null,
        (error: SmtpError) => error,
      ),
    );
    const started = performance.now();
    // The four that wait for a connection come back as EBUSY once the pool has not moved for 500 ms.
    await expect.poll(() => tarpit.accepted, { timeout: 5_000 }).toBe(2);
    let timer: NodeJS.Timeout | undefined;
    const handedBack = await Promise.race([
      Promise.all(sends.slice(2)),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 10_000))),
    ]);
    clearTimeout(timer);
    expect(handedBack?.map((e) => e?.code)).toEqual(['EBUSY', 'EBUSY', 'EBUSY', 'EBUSY']);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(tarpit.maxOpen).toBe(2);
    p.close();
  });
});
