/**
 * Asynchronous bounces (DSN, RFC 3464) and complaints (ARF, RFC 5965) sent by a real SMTP client
 * to the bounce receiver, after a real delivery: what they do to the message, its events, the
 * statistics and the suppression list, and what the receiver refuses.
 */
import nodemailer from 'nodemailer';
import { contextOf } from '../../src/instance-context.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBounceReceiver, type BounceReceiver } from 'mailplane';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { arf, dsn } from '../support/reports.js';

describe.each(storeKinds)('the bounce and complaint receiver (%s)', (kind) => {
  let env: DeliveryEnv;
  let receiver: BounceReceiver;
  let port: number;

  beforeEach(async () => {
    env = await startDeliveryEnv(kind);
    receiver = createBounceReceiver(env.api.mailplane, { feedbackAddresses: ['FBL@bounces.mailplane.test'] });
    port = (await receiver.listen(0, '127.0.0.1')).port;
  });
  afterEach(async () => {
    await receiver.close();
    await env.close();
  });

  const submit = (to: string, raw: string) =>
    nodemailer
      .createTransport({ host: '127.0.0.1', port, ignoreTLS: true })
      .sendMail({ envelope: { from: 'MAILER-DAEMON@mx.rcpt.test', to: [to] }, raw });
  const returnPathHost = async () =>
    (await contextOf(env.api.mailplane).store.domains.get(env.sender.subAccount.id, env.sender.domain.id))!
      .returnPathHost;
  const stats = async () =>
    (
      await env.api.call('GET', '/subaccount/stat/aggregate', {
        sub: env.key,
        query: { from: '2026-05-01', to: '2026-05-01' },
      })
    ).body;
  const suppressions = async () => (await env.api.call('GET', '/subaccount/suppression', { sub: env.key })).body;

  async function delivered(address: string): Promise<string> {
    const [entry] = await env.send([address]);
    await env.waitForStatus(entry!.messageId, 'delivered');
    return entry!.messageId;
  }

  it('ends a delivered message HardBounced on a DSN to its VERP address, suppressing the address once', async () => {
    const id = await delivered(`gone@${RCPT_DOMAIN}`);
    const verp = `b+${id}@${await returnPathHost()}`;
    const info = await submit(
      verp,
      dsn(
        verp,
        `gone@${RCPT_DOMAIN}`,
        'failed',
        '5.1.1',
        '550 5.1.1 <gone@rcpt.test>: Recipient address rejected: User unknown',
      ),
    );
    expect(info.response).toMatch(/^250 /);
    const view = await env.waitForStatus(id, 'hard_bounced');
    const bounce = view.events.find((e: { type: number }) => e.type === 4);
    expect(bounce.eventMetadata).toMatchObject({ smtpCode: 550, enhancedCode: '5.1.1', source: 'dsn' });
    expect(view.smtpDescription ?? bounce.smtpDescription).toContain('User unknown');
    expect(await suppressions()).toMatchObject([
      { email: `gone@${RCPT_DOMAIN}`, reason: 2, smtp_error: expect.stringContaining('5.1.1') },
    ]);
    expect(await stats()).toMatchObject({ delivered: 1, hardBounced: 1 });

    // The same report again changes nothing; the address is dropped from later sends.
    await submit(verp, dsn(verp, `gone@${RCPT_DOMAIN}`, 'failed', '5.1.1', '550 5.1.1 User unknown'));
    expect((await env.message(id)).events.filter((e: { type: number }) => e.type === 4)).toHaveLength(1);
    expect((await stats()).hardBounced).toBe(1);
    const [again] = await env.send([`gone@${RCPT_DOMAIN}`]);
    expect(again!.errorCode).toBe(2);
  });

  it('ignores a delay notice', async () => {
    const id = await delivered(`slow@${RCPT_DOMAIN}`);
    const verp = `b+${id}@${await returnPathHost()}`;
    expect(
      (await submit(verp, dsn(verp, `slow@${RCPT_DOMAIN}`, 'delayed', '4.4.7', '451 4.4.7 Try later'))).response,
    ).toMatch(/^250 /);
    expect((await env.message(id)).status).toBe('delivered');
    expect(await suppressions()).toEqual([]);
  });

  it('records one Spam event and a spam-complaint suppression for complaints that quote the message', async () => {
    const id = await delivered(`angry@${RCPT_DOMAIN}`);
    for (let i = 0; i < 2; i++)
      expect(
        (await submit('fbl@bounces.mailplane.test', arf('fbl@bounces.mailplane.test', `<${id}@sender.test>`))).response,
      ).toMatch(/^250 /);
    const view = await env.message(id);
    expect(view.status).toBe('delivered');
    expect(view.events.filter((e: { type: number }) => e.type === 8)).toMatchObject([
      { eventMetadata: { feedbackType: 'abuse' } },
    ]);
    expect(await suppressions()).toMatchObject([{ email: `angry@${RCPT_DOMAIN}`, reason: 3 }]);
    expect((await stats()).spam).toBe(1);
  });

  it("answers reports about a deleted sub-account's message permanently: a complaint 250 and discarded, a DSN 550 at RCPT", async () => {
    const id = await delivered(`late@${RCPT_DOMAIN}`);
    const verp = `b+${id}@${await returnPathHost()}`;
    const deleted = await env.api.call('DELETE', `/account/subaccount/${env.sender.subAccount.id}`, {
      account: env.api.accountKey,
    });
    expect(deleted.status).toBe(200);
    // Before: a foreign-key failure on the suppression, answered 451 4.3.0 for ever.
    for (let i = 0; i < 2; i++) {
      expect(
        (await submit('fbl@bounces.mailplane.test', arf('fbl@bounces.mailplane.test', `<${id}@sender.test>`))).response,
      ).toMatch(/^250 /);
    }
    await expect(
      submit(verp, dsn(verp, `late@${RCPT_DOMAIN}`, 'failed', '5.1.1', '550 5.1.1 User unknown')),
    ).rejects.toMatchObject({ responseCode: 550 });
    const view = await env.api.call('GET', `/account/message/${id}`, { account: env.api.accountKey });
    expect(view.body.status).toBe('delivered');
    expect(view.body.events.map((e: { type: number }) => e.type)).toEqual([0, 2]);
  });

  it('refuses mail for anything but an existing message on its own return-path host, or a feedback address', async () => {
    const id = await delivered(`ok@${RCPT_DOMAIN}`);
    for (const to of [
      `b+00000000-0000-4000-8000-000000000000@${await returnPathHost()}`,
      `b+${id}@elsewhere.test`,
      `postmaster@${await returnPathHost()}`,
      `someone@${RCPT_DOMAIN}`,
    ]) {
      await expect(
        submit(to, dsn(to, `ok@${RCPT_DOMAIN}`, 'failed', '5.1.1', '550 5.1.1 User unknown')),
      ).rejects.toMatchObject({ responseCode: 550 });
    }
    expect((await env.message(id)).status).toBe('delivered');
  });
});
