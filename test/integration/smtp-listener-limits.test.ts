/**
 * What the SMTP listeners (the relay, the bounce receiver) refuse an attacker, over real sockets:
 * cleartext AUTH off loopback, oversized messages (declared and streamed, with the memory they
 * cost the process), failed-login throttling and lockout, and connections per client address.
 * Listener limits do not depend on the store, so SQLite only, but for a burst of logins whose
 * lookups PostgreSQL runs truly at once.
 */
import { networkInterfaces } from 'node:os';
import nodemailer from 'nodemailer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBounceReceiver, createSmtpRelay, type SmtpListener, type SmtpRelayOptions } from 'mailplane';
import { storeKinds } from '../support/databases.js';
import { startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { authPlain, rawSmtp } from '../support/raw-smtp.js';
import { selfSignedCertificate } from '../support/tls-cert.js';

const tls = selfSignedCertificate();

/** An IPv4 address of this host that is not loopback, if it has one. */
const external = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

describe('the SMTP listeners under attack', () => {
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

  async function relay(options: SmtpRelayOptions = {}, host = '127.0.0.1'): Promise<number> {
    const created = createSmtpRelay(env.api.mailplane, options);
    listeners.push(created);
    return (await created.listen(0, host)).port;
  }
  async function receiver(options: Parameters<typeof createBounceReceiver>[1] = {}): Promise<number> {
    const created = createBounceReceiver(env.api.mailplane, {
      feedbackAddresses: ['fbl@bounces.mailplane.test'],
      ...options,
    });
    listeners.push(created);
    return (await created.listen(0, '127.0.0.1')).port;
  }

  describe('cleartext AUTH', () => {
    /** EHLO's reply and what AUTH PLAIN (with the right password), AUTH LOGIN and MAIL FROM get. */
    async function attempt(port: number, host = '127.0.0.1') {
      const client = await rawSmtp(port, host);
      const ehlo = await client.command('EHLO client.test');
      const result = {
        ehlo,
        plain: await client.command(authPlain(user, pass)),
        login: await client.command('AUTH LOGIN'),
        mail: await client.command('MAIL FROM:<news@sender.test>'),
      };
      client.close();
      return result;
    }
    const refused = {
      ehlo: expect.not.stringMatching(/AUTH/),
      plain: '538 5.7.11 Encryption required for requested authentication mechanism',
      login: '538 5.7.11 Encryption required for requested authentication mechanism',
      mail: expect.stringMatching(/^530 /),
    };

    it.skipIf(!external)(
      'is refused, without checking the password, on a listener bound to a non-loopback address',
      async () => {
        const port = await relay({}, external);
        expect(await attempt(port, external)).toEqual(refused);
      },
    );

    it('is refused wherever the decision says the client is not local, and offered to loopback clients by default', async () => {
      expect(await attempt(await relay({ allowInsecureAuth: () => false }))).toEqual(refused);
      expect(await attempt(await relay({ allowInsecureAuth: false }))).toEqual(refused);
      const local = await rawSmtp(await relay());
      expect(await local.command('EHLO client.test')).toMatch(/AUTH PLAIN LOGIN/);
      expect(await local.command(authPlain(user, pass))).toMatch(/^235 /);
      local.close();
    });

    it('needs STARTTLS first when the relay has a certificate, even from loopback', async () => {
      const port = await relay({ tls });
      const client = await rawSmtp(port);
      const ehlo = await client.command('EHLO client.test');
      expect(ehlo).toMatch(/STARTTLS/);
      expect(ehlo).not.toMatch(/AUTH/);
      expect(await client.command(authPlain(user, pass))).toBe(
        '538 5.7.11 Encryption required for requested authentication mechanism',
      );
      expect(await client.command('STARTTLS')).toMatch(/^220 /);
      await client.startTls();
      expect(await client.command('EHLO client.test')).toMatch(/AUTH PLAIN LOGIN/);
      expect(await client.command(authPlain(user, pass))).toMatch(/^235 /);
      client.close();
    });
  });

  describe('failed logins', () => {
    // Delays long enough that an unslowed login (tens of ms) stays far below them on a loaded machine.
    const throttle = { freeFailures: 2, baseDelayMs: 1_000, maxDelayMs: 2_000, lockoutFailures: 5 };
    /** The reply to one AUTH PLAIN on a fresh connection from `from`, and how long it took. */
    async function login(port: number, from: string, username: string, password: string) {
      const client = await rawSmtp(port, '127.0.0.1', from);
      if (!client.greeting.startsWith('220')) return { reply: client.greeting, ms: 0 };
      await client.command('EHLO client.test');
      const started = performance.now();
      const reply = await client.command(authPlain(username, password));
      const ms = performance.now() - started;
      client.close();
      return { reply, ms };
    }

    it('are slowed after the free ones, lock the address out, and leave other addresses alone', async () => {
      const port = await relay({ loginThrottle: throttle });
      const tries = [];
      // Unknown usernames and wrong passwords alternate: they must cost the same.
      for (let i = 0; i < 5; i++)
        tries.push(await login(port, '127.0.0.10', i % 2 === 0 ? user : `smtp_nobody_${i}`, 'wrong'));
      expect(tries.map((t) => t.reply)).toEqual([
        '535 5.7.8 Authentication credentials invalid',
        '535 5.7.8 Authentication credentials invalid',
        '535 5.7.8 Authentication credentials invalid',
        '535 5.7.8 Authentication credentials invalid',
        '421 4.7.0 Too many failed logins from your address, try again later',
      ]);
      expect(tries[0]!.ms).toBeLessThan(1_000);
      expect(tries[2]!.ms).toBeGreaterThanOrEqual(990);
      expect(tries[3]!.ms).toBeGreaterThanOrEqual(1_990);
      expect(tries[4]!.ms).toBeGreaterThanOrEqual(1_990);
      // Locked out: refused at connect, even with the right password, until the lockout ends.
      const locked = await rawSmtp(port, '127.0.0.1', '127.0.0.10');
      expect(locked.greeting).toBe('421 4.7.0 Too many failed logins from your address, try again later');
      await locked.closed;
      // Another address logs in with the right password at once.
      const other = await login(port, '127.0.0.11', user, pass);
      expect(other.reply).toMatch(/^235 /);
      expect(other.ms).toBeLessThan(1_000);
      // The lockout ends (15 minutes by default, on the instance's clock).
      env.clock.advance(15 * 60_000 + 1);
      expect((await login(port, '127.0.0.10', user, pass)).reply).toMatch(/^235 /);
    }, 30_000);

    it('are slowed per username across addresses, and an unknown username is slowed the same', async () => {
      const port = await relay({ loginThrottle: throttle });
      for (const name of [user, 'smtp_nobody']) {
        const tries = [];
        for (const from of ['127.0.0.20', '127.0.0.21', '127.0.0.22'])
          tries.push(await login(port, from, name, 'wrong'));
        expect(tries.map((t) => t.reply)).toEqual(Array(3).fill('535 5.7.8 Authentication credentials invalid'));
        expect(tries[2]!.ms).toBeGreaterThanOrEqual(990);
      }
      // The right password is never slowed, and clears its username's failures.
      expect((await login(port, '127.0.0.23', user, pass)).ms).toBeLessThan(1_000);
      expect((await login(port, '127.0.0.24', user, 'wrong')).ms).toBeLessThan(1_000);
    }, 30_000);

    it('answer nodemailer with 535 and then 421', async () => {
      const port = await relay({ loginThrottle: { ...throttle, baseDelayMs: 10, maxDelayMs: 10 } });
      const client = () => nodemailer.createTransport({ host: '127.0.0.1', port, auth: { user, pass: 'wrong' } });
      for (let i = 0; i < 4; i++) await expect(client().verify()).rejects.toMatchObject({ responseCode: 535 });
      await expect(client().verify()).rejects.toMatchObject({ responseCode: 421 });
    });
  });

  describe.each(['relay', 'bounce receiver'] as const)('unreadable MIME on the %s', (kind) => {
    /** A message whose parts nest `depth` deep: mailparser refuses 1,000 levels (EMAXLEN). */
    const nested = (depth: number) => {
      let open = '';
      let close = '';
      for (let i = 0; i < depth; i++) {
        open += `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n`;
        close = `\r\n--b${i}--\r\n${close}`;
      }
      return `From: news@sender.test\r\nTo: ann@example.test\r\nSubject: deep\r\n${open}Content-Type: text/plain\r\n\r\nhello${close}\r\n.\r\n`;
    };

    it('is refused for good (550 5.6.0), not deferred, and the connection goes on', async () => {
      const port = kind === 'relay' ? await relay({ allowInsecureAuth: true }) : await receiver();
      const client = await rawSmtp(port);
      await client.command('EHLO client.test');
      if (kind === 'relay') expect(await client.command(authPlain(user, pass))).toMatch(/^235 /);
      expect(await client.command('MAIL FROM:<news@sender.test>')).toMatch(/^250 /);
      expect(
        await client.command(`RCPT TO:<${kind === 'relay' ? 'ann@example.test' : 'fbl@bounces.mailplane.test'}>`),
      ).toMatch(/^250 /);
      expect(await client.command('DATA')).toMatch(/^354 /);
      await client.send(nested(1000));
      expect(await client.reply()).toMatch(/^550 5\.6\.0 The message's MIME structure cannot be read/);
      expect(await client.command('NOOP')).toMatch(/^250 /);
      client.close();
    });
  });

  describe.each(['relay', 'bounce receiver'] as const)('connections per address on the %s', (kind) => {
    it('refuses a connection over the limit with 421 4.7.0 and takes it again once one closes', async () => {
      const port =
        kind === 'relay'
          ? await relay({ maxConnectionsPerAddress: 3 })
          : await receiver({ maxConnectionsPerAddress: 3 });
      const held = await Promise.all([1, 2, 3].map(() => rawSmtp(port)));
      expect(held.map((c) => c.greeting.slice(0, 4))).toEqual(['220 ', '220 ', '220 ']);
      const over = await rawSmtp(port);
      expect(over.greeting).toBe('421 4.7.0 Too many connections from your address, try again later');
      await over.closed;
      // Another address is not counted with them.
      const other = await rawSmtp(port, '127.0.0.1', '127.0.0.2');
      expect(other.greeting).toMatch(/^220 /);
      other.close();
      held[0]!.close();
      await held[0]!.closed;
      await new Promise((resolve) => setTimeout(resolve, 50));
      const again = await rawSmtp(port);
      expect(again.greeting).toMatch(/^220 /);
      for (const c of [again, ...held]) c.close();
    });
  });
});

// On PostgreSQL the username lookups of logins sent at once are in flight together.
describe.each(storeKinds)('the relay under a burst of logins (%s)', (kind) => {
  let env: DeliveryEnv;
  let listener: SmtpListener;
  beforeEach(async () => {
    env = await startDeliveryEnv(kind);
  });
  afterEach(async () => {
    await listener.close();
    await env.close();
  });

  it('locks the address out within a burst of logins sent at once on parallel connections', async () => {
    const { username: user } = env.sender.subAccount.smtpAuths[0]!;
    listener = createSmtpRelay(env.api.mailplane, {
      loginThrottle: { freeFailures: 2, baseDelayMs: 10, maxDelayMs: 10, lockoutFailures: 5 },
    });
    const { port } = await listener.listen(0, '127.0.0.1');
    const clients = await Promise.all(Array.from({ length: 10 }, () => rawSmtp(port, '127.0.0.1', '127.0.0.40')));
    for (const client of clients) await client.command('EHLO client.test');
    const replies = await Promise.all(clients.map((client) => client.command(authPlain(user, 'wrong'))));
    expect(replies.sort()).toEqual([
      ...Array(6).fill('421 4.7.0 Too many failed logins from your address, try again later'),
      ...Array(4).fill('535 5.7.8 Authentication credentials invalid'),
    ]);
    for (const client of clients) client.close();
  });
});
