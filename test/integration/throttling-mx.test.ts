/**
 * The throttling receiver of test/support/throttling-mx.ts, driven by nodemailer and raw SMTP from
 * 127.0.0.1 and 127.0.0.2 over real sockets: its per-IP rate window (on a manual clock), its
 * connection cap, its blocklist refusals, what it counts, and that its replies are ones the
 * throttling-reply table (src/shaping/throttle-replies.ts) recognises.
 */
import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { MailboxProvider } from '../../src/routing/providers.js';
import { throttleActionFor } from '../../src/shaping/throttle-replies.js';
import { rawSmtp, type RawSmtp } from '../support/raw-smtp.js';
import {
  gmailRateLimitedReply,
  startThrottlingMx,
  type ThrottlingMx,
  type ThrottlingMxOptions,
} from '../support/throttling-mx.js';

let mx: ThrottlingMx | undefined;
const open: RawSmtp[] = [];
afterEach(async () => {
  for (const session of open.splice(0)) session.close();
  await mx?.close();
  mx = undefined;
});

async function start(options: ThrottlingMxOptions): Promise<ThrottlingMx> {
  mx = await startThrottlingMx(options);
  return mx;
}

/** Sends one message from `localAddress`, on a new connection; resolves to the reply or the refusal. */
async function send(server: ThrottlingMx, localAddress: string, n: number): Promise<{ code: number; text: string }> {
  const client = nodemailer.createTransport({ host: server.host, port: server.port, localAddress, ignoreTLS: true });
  try {
    const info = await client.sendMail({
      envelope: { from: 'news@sender.test', to: [`r${n}@rcpt.test`] },
      raw: `From: news@sender.test\r\nTo: r${n}@rcpt.test\r\nSubject: ${n}\r\n\r\n.hello ${n}\r\n`,
    });
    return { code: Number(info.response.slice(0, 3)), text: info.response };
  } catch (error) {
    const { responseCode, response } = error as { responseCode?: number; response?: string };
    return { code: responseCode ?? 0, text: response ?? String(error) };
  } finally {
    client.close();
  }
}

async function raw(server: ThrottlingMx, localAddress: string): Promise<RawSmtp> {
  const session = await rawSmtp(server.port, server.host, localAddress);
  open.push(session);
  return session;
}

describe('throttling MX', () => {
  it("accepts N messages a minute per client IP, then answers with Gmail's 421-4.7.28 until the window slides", async () => {
    let now = Date.UTC(2026, 4, 1, 12);
    const server = await start({ messagesPerMinute: 3, now: () => now });
    const fromOne = [];
    for (let n = 1; n <= 5; n += 1) fromOne.push(await send(server, '127.0.0.1', n));
    expect(fromOne.map((r) => r.code)).toEqual([250, 250, 250, 421, 421]);
    // Another source address has an allowance of its own.
    expect((await send(server, '127.0.0.2', 6)).code).toBe(250);

    const refusal = fromOne[3]!;
    expect(refusal.text.replace(/\r?\n/g, '\n')).toBe(gmailRateLimitedReply('127.0.0.1').replace(/\r\n/g, '\n'));
    expect(refusal.text).toContain('Our system has detected an unusual rate of');
    expect(throttleActionFor(MailboxProvider.Gmail, { code: refusal.code, text: refusal.text })).toMatchObject({
      action: 'slow-down',
      reason: 'GMAIL_RATE_LIMITED',
    });

    // A sliding window: 59 s later the three are still in it; 61 s after them the allowance is back.
    now += 59_000;
    expect((await send(server, '127.0.0.1', 7)).code).toBe(421);
    now += 2_000;
    expect((await send(server, '127.0.0.1', 8)).code).toBe(250);

    const one = server.client('127.0.0.1');
    expect(one).toMatchObject({ accepted: 4, replies421: 3 });
    await expect.poll(() => one.open).toBe(0);
    expect(one.messages.map((m) => m.rcptTo)).toEqual([
      ['r1@rcpt.test'],
      ['r2@rcpt.test'],
      ['r3@rcpt.test'],
      ['r8@rcpt.test'],
    ]);
    expect(one.messages[0]!.raw.toString()).toContain('\r\n.hello 1\r\n');
    expect(server.client('127.0.0.2')).toMatchObject({ accepted: 1, replies421: 0 });
  });

  it('refuses a message at the end of DATA when another session used the allowance meanwhile', async () => {
    const server = await start({ messagesPerMinute: 1 });
    const first = await raw(server, '127.0.0.2');
    const second = await raw(server, '127.0.0.2');
    for (const session of [first, second]) {
      expect(await session.command('EHLO client.test')).toMatch(/^250/);
      expect(await session.command('MAIL FROM:<a@sender.test>')).toMatch(/^250/);
      expect(await session.command('RCPT TO:<b@rcpt.test>')).toMatch(/^250/);
      expect(await session.command('DATA')).toMatch(/^354/);
    }
    expect(await first.command('Subject: one\r\n\r\nbody\r\n.')).toMatch(/^250 /);
    expect(await second.command('Subject: two\r\n\r\nbody\r\n.')).toMatch(/^421-4\.7\.28 /);
    await second.closed;
    expect(server.client('127.0.0.2')).toMatchObject({ accepted: 1, replies421: 1, maxOpen: 2 });
  });

  it('caps the sessions open at once per client IP with a 421 greeting that closes', async () => {
    const server = await start({ connectionsPerIp: 2 });
    const a = await raw(server, '127.0.0.2');
    const b = await raw(server, '127.0.0.2');
    const c = await raw(server, '127.0.0.2');
    expect([a.greeting, b.greeting]).toEqual(['220 throttling.test ESMTP ready', '220 throttling.test ESMTP ready']);
    expect(c.greeting).toBe('421 4.7.652 The mail server [127.0.0.2] has exceeded the maximum number of connections.');
    await c.closed;
    expect(throttleActionFor(MailboxProvider.Microsoft, { code: 421, text: c.greeting })?.reason).toBe(
      'MICROSOFT_TOO_MANY_CONNECTIONS',
    );
    expect(throttleActionFor(MailboxProvider.Default, { code: 421, text: c.greeting })?.reason).toBe(
      'TOO_MANY_CONNECTIONS',
    );
    // Another IP is not held by 127.0.0.2's sessions, and a closed session frees a place.
    expect((await raw(server, '127.0.0.1')).greeting).toMatch(/^220 /);
    a.close();
    await a.closed;
    await expect.poll(() => server.client('127.0.0.2').open).toBe(1);
    expect((await raw(server, '127.0.0.2')).greeting).toMatch(/^220 /);
    expect(server.client('127.0.0.2')).toMatchObject({ maxOpen: 2, replies421: 1, refusedConnections: 1 });
  });

  it('never lets one IP past its connection cap under a burst of nodemailer sends', async () => {
    const server = await start({ connectionsPerIp: 2 });
    const results = await Promise.all(Array.from({ length: 8 }, (_, n) => send(server, '127.0.0.2', n)));
    const delivered = results.filter((r) => r.code === 250).length;
    expect(delivered + results.filter((r) => r.code === 421).length).toBe(8);
    const counts = server.client('127.0.0.2');
    expect(counts).toMatchObject({ accepted: delivered, refusedConnections: 8 - delivered, replies421: 8 - delivered });
    expect(counts.maxOpen).toBeGreaterThan(0);
    expect(counts.maxOpen).toBeLessThanOrEqual(2);
  });

  it('refuses a blocklisted IP with a Spamhaus 5.7.1 at MAIL FROM, or at the greeting, and no other IP', async () => {
    const server = await start({ blocklisted: ['127.0.0.2'] });
    const listed = await send(server, '127.0.0.2', 1);
    expect(listed.code).toBe(550);
    expect(listed.text).toBe(
      '550 5.7.1 Service unavailable; Client host [127.0.0.2] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/127.0.0.2',
    );
    expect(throttleActionFor(MailboxProvider.Microsoft, listed)).toMatchObject({
      action: 'suspend',
      kind: 'blocklist',
      reason: 'SPAMHAUS_LISTED',
    });
    expect((await send(server, '127.0.0.1', 2)).code).toBe(250);
    expect(server.client('127.0.0.2')).toMatchObject({ accepted: 0, blocklistRefusals: 1 });
    await server.close();

    const atConnect = await start({ blocklisted: ['127.0.0.3'], blocklistAt: 'connect' });
    const session = await raw(atConnect, '127.0.0.3');
    expect(session.greeting).toMatch(
      /^554 5\.7\.1 Service unavailable; Client host \[127\.0\.0\.3\] blocked using zen\.spamhaus\.org/,
    );
    await session.closed;
    expect(atConnect.client('127.0.0.3')).toMatchObject({ blocklistRefusals: 1, maxOpen: 0 });
  });
});
