/**
 * What a message costs the SMTP listeners (the relay, the bounce receiver) in memory, over real
 * sockets: a declared SIZE over the limit, a 50 MB message against a 1 MB limit (with the memory
 * the process keeps meanwhile), and the listener-wide budget of bytes held at once.
 * Listener limits do not depend on the store, so SQLite only.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBounceReceiver, createSmtpRelay, type SmtpListener, type SmtpRelayOptions } from 'mailplane';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { authPlain, rawSmtp, type RawSmtp } from '../support/raw-smtp.js';

const MB = 1024 * 1024;

// A full collection before each reading, so that what is measured is what the process keeps,
// not garbage it has yet to free. Enabling gc at run time is test-only.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The process's memory after a full garbage collection. */
function retained(): { rss: number; arrayBuffers: number } {
  gc();
  const { rss, arrayBuffers } = process.memoryUsage();
  return { rss, arrayBuffers };
}

/**
 * Streams `megabytes` MB of 998-character lines as DATA and answers the reply to the final dot,
 * with the largest growth of retained memory read every 5 MB along the way.
 */
async function streamData(
  client: RawSmtp,
  megabytes: number,
): Promise<{ reply: string; rss: number; arrayBuffers: number }> {
  expect(await client.command('DATA')).toMatch(/^354 /);
  const line = `${'x'.repeat(998)}\r\n`;
  const chunk = Buffer.from(line.repeat(Math.floor(MB / line.length)));
  const before = retained();
  const growth = { rss: 0, arrayBuffers: 0 };
  const read = () => {
    const now = retained();
    growth.rss = Math.max(growth.rss, now.rss - before.rss);
    growth.arrayBuffers = Math.max(growth.arrayBuffers, now.arrayBuffers - before.arrayBuffers);
  };
  await client.send('Subject: big\r\n\r\n');
  for (let i = 1; i <= megabytes; i++) {
    await client.send(chunk);
    if (i % 5 === 0) read();
  }
  // The server has read all but what the sockets buffer: the last reading sees the most it kept.
  await new Promise((resolve) => setTimeout(resolve, 200));
  read();
  return { reply: await client.command('.'), ...growth };
}

describe('the SMTP listeners and big messages', () => {
  let env: DeliveryEnv;
  let listeners: SmtpListener[];
  let user: string;
  let pass: string;

  beforeEach(async () => {
    env = await startDeliveryEnv('sqlite');
    listeners = [];
    ({ username: user, password: pass } = env.sender.subAccount.smtpAuths[0]!);
  });
  afterEach(async () => {
    for (const listener of listeners) await listener.close();
    await env.close();
  });

  async function relay(options: SmtpRelayOptions = {}): Promise<number> {
    const created = createSmtpRelay(env.api.mailplane, options);
    listeners.push(created);
    return (await created.listen(0, '127.0.0.1')).port;
  }
  async function receiver(options: Parameters<typeof createBounceReceiver>[1] = {}): Promise<number> {
    const created = createBounceReceiver(env.api.mailplane, {
      feedbackAddresses: ['fbl@bounces.mailplane.test'],
      ...options,
    });
    listeners.push(created);
    return (await created.listen(0, '127.0.0.1')).port;
  }
  const loggedIn = async (port: number, from?: string) => {
    const client = await rawSmtp(port, '127.0.0.1', from);
    await client.command('EHLO client.test');
    expect(await client.command(authPlain(user, pass))).toMatch(/^235 /);
    return client;
  };

  describe.each(['relay', 'bounce receiver'] as const)('message size on the %s', (kind) => {
    const limit = 1 * MB;
    const open = async () => {
      if (kind === 'relay') return loggedIn(await relay({ maxMessageBytes: limit }));
      const client = await rawSmtp(await receiver({ maxMessageBytes: limit }));
      await client.command('EHLO client.test');
      return client;
    };
    const envelope = async (client: RawSmtp) => {
      expect(await client.command(`MAIL FROM:<news@${env.sender.domain.name}>`)).toMatch(/^250 /);
      expect(
        await client.command(
          kind === 'relay' ? `RCPT TO:<ann@${RCPT_DOMAIN}>` : 'RCPT TO:<fbl@bounces.mailplane.test>',
        ),
      ).toMatch(/^250 /);
    };

    it('advertises SIZE and refuses a larger declared SIZE with 552 5.3.4', async () => {
      const client = await open();
      expect(await client.command('EHLO client.test')).toContain(`250 SIZE ${limit}`);
      expect(await client.command(`MAIL FROM:<news@${env.sender.domain.name}> SIZE=${limit + 1}`)).toBe(
        `552 5.3.4 Message size exceeds fixed maximum message size (${limit} bytes)`,
      );
      expect(await client.command(`MAIL FROM:<news@${env.sender.domain.name}> SIZE=${limit}`)).toMatch(/^250 /);
      client.close();
    });

    it('discards a 50 MB message past the 1 MB limit as it arrives, answers 552 5.3.4, and goes on serving', async () => {
      const client = await open();
      await envelope(client);
      const streamed = await streamData(client, 50);
      expect(streamed.reply).toBe('552 5.3.4 Message exceeds the size limit');
      // Kept whole, the message adds 52 MB of buffers (rss +54-58 MB); discarded as it comes, what
      // is left is the data in flight at the moment of a reading: 0.06 MB typically, 8 MB at times,
      // and 16 MB once on a loaded CI machine, where the client in this same process runs ahead of
      // the server. The bounds sit at half the message: far above that noise, far below keeping it.
      expect(streamed.arrayBuffers).toBeLessThan(26 * MB);
      expect(streamed.rss).toBeLessThan(40 * MB);
      // The same connection still works, and so does the next client.
      expect(await client.command('RSET')).toMatch(/^250 /);
      expect(await client.command('NOOP')).toMatch(/^250 /);
      client.close();
      const next = await open();
      await envelope(next);
      next.close();
      expect(env.sink.received).toEqual([]);
    }, 120_000);
  });

  describe('the bytes a listener holds at once', () => {
    const report = (client: RawSmtp) =>
      client.command('MAIL FROM:<>').then(() => client.command('RCPT TO:<fbl@bounces.mailplane.test>'));
    /** Sends the start of a report of `bytes` bytes, without its final dot. */
    async function partial(client: RawSmtp, bytes: number) {
      expect(await report(client)).toMatch(/^250 /);
      expect(await client.command('DATA')).toMatch(/^354 /);
      await client.send(`Subject: report\r\n\r\n${`${'y'.repeat(998)}\r\n`.repeat(Math.floor(bytes / 1000))}`);
    }

    it('are bounded: a message that does not fit is discarded and answered 452 4.3.1, and the next one fits again', async () => {
      const port = await receiver({ maxMessageBytes: MB, maxBufferedBytes: 2 * MB });
      const clients = await Promise.all([1, 2, 3].map(() => rawSmtp(port)));
      for (const client of clients) await client.command('EHLO client.test');
      // Two messages of 0.8 MB fit in 2 MB, a third does not.
      for (const client of clients) {
        await partial(client, 0.8 * MB);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      const [first, second, third] = clients as [RawSmtp, RawSmtp, RawSmtp];
      expect(await third.command('.')).toBe('452 4.3.1 Insufficient system storage, try again later');
      expect(await first.command('.')).toBe('250 2.0.0 Report received');
      expect(await second.command('.')).toBe('250 2.0.0 Report received');
      // The bytes were let go: the refused sender's retry fits.
      await partial(third, 0.8 * MB);
      expect(await third.command('.')).toBe('250 2.0.0 Report received');
      for (const client of clients) client.close();
    });
  });
});
