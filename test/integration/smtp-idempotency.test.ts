/**
 * `X-Mailplane-Idempotency-Key` on the SMTP relay: a message submitted again (the client lost the
 * 250 and retries) is answered as the first was and sent once.
 */
import nodemailer from 'nodemailer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSmtpRelay, type SmtpRelay } from 'mailplane';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { selfSignedCertificate } from '../support/tls-cert.js';

const tls = selfSignedCertificate();

describe.each(storeKinds)('idempotency keys on the SMTP relay (%s)', (kind) => {
  let env: DeliveryEnv;
  let relay: SmtpRelay;
  let port: number;

  beforeEach(async () => {
    env = await startDeliveryEnv(kind);
    relay = createSmtpRelay(env.api.mailplane, { tls });
    port = (await relay.listen(0, '127.0.0.1')).port;
  });
  afterEach(async () => {
    await relay.close();
    await env.close();
  });

  const submit = (key: string, text = 'plain text') => {
    const auth = env.sender.subAccount.smtpAuths[0]!;
    const client = nodemailer.createTransport({
      host: '127.0.0.1',
      port,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
      auth: { user: auth.username, pass: auth.password },
    });
    // nodemailer writes a new Message-ID, Date and MIME boundary each time: the key still matches.
    return client.sendMail({
      from: `news@${env.sender.domain.name}`,
      to: `ann@${RCPT_DOMAIN}`,
      subject: 'Order',
      text,
      html: '<p>html</p>',
      headers: { 'X-Mailplane-Idempotency-Key': key },
    });
  };
  const processed = async () =>
    (
      await env.api.call('GET', '/subaccount/stat/aggregate', {
        sub: env.key,
        query: { from: '2026-01-01', to: '2026-12-31' },
      })
    ).body.processed as number;

  it('answers a resubmitted message with the first queue id and sends it once', async () => {
    const first = await submit('smtp-order-7');
    const again = await submit('smtp-order-7');
    expect(first.response).toMatch(/^250 2\.0\.0 Ok: queued 1 message as [0-9a-f-]{36}$/);
    expect(again.response).toBe(first.response);
    expect(await processed()).toBe(1);
  });

  it('refuses the key with another message, and a key over 255 characters, for good (550)', async () => {
    await submit('smtp-order-8');
    await expect(submit('smtp-order-8', 'another text')).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringMatching(/IDEMPOTENCY_KEY_REUSED/),
    });
    await expect(submit('x'.repeat(256))).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringMatching(/IDEMPOTENCY_KEY_TOO_LONG/),
    });
    expect(await processed()).toBe(1);
  });
});
