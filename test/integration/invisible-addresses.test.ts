/**
 * Addresses with bidirectional controls or invisible format characters (issue 25, item 10) are
 * refused wherever an address enters: the send API (a recipient is dropped as INVALID_ADDRESS,
 * a sender or Reply-To is a 422), the suppression list, and the SMTP relay's envelope and From
 * header, over a real socket. A display name with them is kept and delivered as correct MIME.
 */
import { simpleParser } from 'mailparser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSmtpRelay, type SmtpRelay } from 'mailplane';
import { expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { authPlain, rawSmtp, type RawSmtp } from '../support/raw-smtp.js';
import { sendBody } from '../support/sending.js';

const RLO = '\u202e';
const words = (code: string) => `must not contain invisible or text-direction characters (found ${code})`;

describe.each(storeKinds)('addresses with invisible or text-direction characters (%s)', (kind) => {
  let env: DeliveryEnv;
  let relay: SmtpRelay | undefined;

  beforeEach(async () => {
    env = await startDeliveryEnv(kind);
  });
  afterEach(async () => {
    await relay?.close();
    relay = undefined;
    await env.close();
  });

  const from = () => `news@${env.sender.domain.name}`;
  const send = (body: unknown) => env.api.call('POST', '/subaccount/email', { sub: env.key, body });

  it('drops a recipient, cc or bcc with U+202E or a zero-width space as INVALID_ADDRESS, and sends the others', async () => {
    const body = sendBody(from(), [`ad${RLO}a@example.test`, `ok@${RCPT_DOMAIN}`]);
    body.to[1] = {
      email: `ok@${RCPT_DOMAIN}`,
      cc: [{ email: `c\u200bc@${RCPT_DOMAIN}` }],
      bcc: [{ email: `b@${RCPT_DOMAIN}` }],
    } as never;
    const result = await send(body);
    expect(result.status, result.text).toBe(200);
    expect(result.body.map((e: { errorCode?: number }) => e.errorCode)).toEqual([1, undefined]);
    expect(result.body[0].message).toBe(`INVALID_ADDRESS: the recipient address ${words('U+202E')}`);
    expect(result.body[1].copies).toMatchObject([
      { kind: 'cc', errorCode: 1, message: `INVALID_ADDRESS: the cc address ${words('U+200B')}` },
      { kind: 'bcc', email: `b@${RCPT_DOMAIN}` },
    ]);
    expect(result.body[1].copies[1].errorCode).toBeUndefined();
    expect((await env.message(result.body[0].messageId)).status).toBe('dropped');
    await env.waitForStatus(result.body[1].messageId, 'delivered');
  });

  it('answers 422 VALIDATION_FAILED to a from or replyTo address with them, naming the field, and stores nothing', async () => {
    for (const [field, body] of [
      [
        'from.email',
        { ...sendBody(from(), [`a@${RCPT_DOMAIN}`]), from: { email: `news${RLO}@${env.sender.domain.name}` } },
      ],
      [
        'replyTo.email',
        { ...sendBody(from(), [`a@${RCPT_DOMAIN}`]), replyTo: { email: `help\u2066@${env.sender.domain.name}` } },
      ],
    ] as const) {
      const result = await send(body);
      expectError(result, 422, 'VALIDATION_FAILED');
      expect(result.body.message).toContain(`${field}: ${words(field === 'from.email' ? 'U+202E' : 'U+2066')}`);
    }
    const list = await env.api.call('GET', '/subaccount/message', { sub: env.key });
    expect(list.body.items ?? list.body).toHaveLength(0);
  });

  it('refuses them on the suppression list', async () => {
    const result = await env.api.call('POST', '/subaccount/suppression', {
      sub: env.key,
      body: { manual: [{ email: `ad${RLO}a@example.test` }] },
    });
    expectError(result, 422, 'VALIDATION_FAILED');
    expect(result.body.message).toContain(words('U+202E'));
  });

  it('keeps a display name with them and delivers it as an encoded word that decodes to the same name', async () => {
    const named = await send({
      ...sendBody(from(), []),
      from: { email: from(), name: `Support ${RLO}gnp.exe` },
      to: [{ email: `bob@${RCPT_DOMAIN}`, name: `Bob${RLO}` }],
    });
    expect(named.status, named.text).toBe(200);
    await env.waitForStatus(named.body[0].messageId, 'delivered');
    const raw = env.sink.received.find((m) => m.rcptTo.includes(`bob@${RCPT_DOMAIN}`))!.raw;
    const head = raw.subarray(0, raw.indexOf('\r\n\r\n')).toString('latin1');
    expect(head).toMatch(/^From: =\?UTF-8\?/m);
    expect(/[^\x00-\x7f]/.test(head)).toBe(false);
    const parsed = await simpleParser(raw);
    expect(parsed.from?.value[0]).toMatchObject({ name: `Support ${RLO}gnp.exe`, address: from() });
  });

  describe('over the SMTP relay', () => {
    async function session(): Promise<RawSmtp> {
      relay = createSmtpRelay(env.api.mailplane);
      const { port } = await relay.listen(0, '127.0.0.1');
      const client = await rawSmtp(port);
      const auth = env.sender.subAccount.smtpAuths[0]!;
      expect(await client.command('EHLO client.test')).toMatch(/^250[ -]/);
      expect(await client.command(authPlain(auth.username, auth.password))).toMatch(/^235 /);
      return client;
    }

    it('refuses RCPT TO with U+202E with a 553 that says why, and takes the next recipient', async () => {
      const client = await session();
      try {
        expect(await client.command(`MAIL FROM:<${from()}>`)).toMatch(/^250 /);
        expect(await client.command(`RCPT TO:<ad${RLO}a@${RCPT_DOMAIN}>`)).toBe(
          `553 5.1.3 The recipient address ${words('U+202E')}`,
        );
        expect(await client.command(`RCPT TO:<ad\u00ada@${RCPT_DOMAIN}>`)).toBe(
          `553 5.1.3 The recipient address ${words('U+00AD')}`,
        );
        expect(await client.command(`RCPT TO:<ada@${RCPT_DOMAIN}>`)).toMatch(/^250 /);
        expect(await client.command('DATA')).toMatch(/^354 /);
        const reply = await client.command(
          `From: ${from()}\r\nTo: ada@${RCPT_DOMAIN}\r\nSubject: hi\r\n\r\nhello\r\n.`,
        );
        expect(reply).toMatch(/^250 2\.0\.0 Ok: queued 1 message as /);
      } finally {
        client.close();
      }
    });

    it('refuses MAIL FROM with U+202E, and a From header with it', async () => {
      const client = await session();
      try {
        expect(await client.command(`MAIL FROM:<news${RLO}@${env.sender.domain.name}>`)).toBe(
          `553 5.1.7 The sender address ${words('U+202E')}`,
        );
        expect(await client.command(`MAIL FROM:<${from()}>`)).toMatch(/^250 /);
        expect(await client.command(`RCPT TO:<ada@${RCPT_DOMAIN}>`)).toMatch(/^250 /);
        expect(await client.command('DATA')).toMatch(/^354 /);
        const reply = await client.command(
          `From: news${RLO}@${env.sender.domain.name}\r\nTo: ada@${RCPT_DOMAIN}\r\nSubject: hi\r\n\r\nhello\r\n.`,
        );
        expect(reply).toBe(`550 5.6.0 from.email: ${words('U+202E')}`);
      } finally {
        client.close();
      }
    });
  });
});
