/**
 * cc and bcc copies as envelope recipients of their own: checked as a `to` is (address, suppression),
 * reported in the send response, each sent in its own SMTP transaction with its own VERP sender and
 * unsubscribe link, so that an unsubscribe, a DSN or a complaint about a copy acts on the copy's
 * address only. Real delivery to an SMTP sink, real reports over SMTP to the bounce receiver.
 */
import { simpleParser } from 'mailparser';
import { contextOf } from '../../src/instance-context.js';
import nodemailer from 'nodemailer';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBounceReceiver, type BounceReceiver } from 'mailplane';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { arf, dsn } from '../support/reports.js';
import type { SmtpSink } from '../support/smtp-sink.js';

type Copy = { kind: 'cc' | 'bcc'; email: string; messageId: string; errorCode?: number; message?: string };
type Entry = { to: string; messageId: string; errorCode?: number; message?: string; copies?: Copy[] };
type Recipient = {
  email: string;
  name?: string;
  customFields?: Record<string, string>;
  cc?: Array<{ email: string; name?: string; customFields?: Record<string, string> }>;
  bcc?: Array<{ email: string }>;
};

const at = (local: string) => `${local}@${RCPT_DOMAIN}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(storeKinds)('cc and bcc copies (%s)', (kind) => {
  let env: DeliveryEnv;
  let receiver: BounceReceiver;
  let port: number;

  beforeEach(async () => {
    env = await startDeliveryEnv(kind);
    receiver = createBounceReceiver(env.api.mailplane, { feedbackAddresses: ['fbl@bounces.mailplane.test'] });
    port = (await receiver.listen(0, '127.0.0.1')).port;
  });
  afterEach(async () => {
    await receiver.close();
    await env.close();
  });

  const send = async (to: Recipient[], extra: Record<string, unknown> = {}) =>
    (await env.send(
      to.map((t) => t.email),
      { to, ...extra },
    )) as unknown as Entry[];
  const received = (sink: SmtpSink, address: string) => sink.received.filter((m) => m.rcptTo.includes(address));
  const waitForTransactions = (count: number) =>
    vi.waitFor(() => expect(env.sink.received).toHaveLength(count), { timeout: 15_000, interval: 20 });
  const returnPathHost = async () =>
    (await contextOf(env.api.mailplane).store.domains.get(env.sender.subAccount.id, env.sender.domain.id))!
      .returnPathHost;
  const suppressions = async () =>
    (await env.api.call('GET', '/subaccount/suppression', { sub: env.key })).body as Array<{
      email: string;
      reason: number;
    }>;
  const types = async (messageId: string) =>
    (await env.message(messageId)).events.map((e: { type: number }) => e.type) as number[];
  const stats = async () =>
    (
      await env.api.call('GET', '/subaccount/stat/aggregate', {
        sub: env.key,
        query: { from: '2026-05-01', to: '2026-05-01' },
      })
    ).body;
  const report = (to: string, raw: string) =>
    nodemailer
      .createTransport({ host: '127.0.0.1', port, ignoreTLS: true })
      .sendMail({ envelope: { from: 'MAILER-DAEMON@mx.rcpt.test', to: [to] }, raw });

  /** Sends to ann with carl in cc and bo in bcc, and waits until all three are delivered. */
  async function sendWithCopies(): Promise<{ ann: string; carl: string; bo: string }> {
    const [entry] = await send([{ email: at('ann'), cc: [{ email: at('carl') }], bcc: [{ email: at('bo') }] }], {
      htmlBody: '<p>Hi</p><a href="{{unsubscribe}}">unsubscribe</a>',
    });
    const [carl, bo] = entry!.copies!.map((c) => c.messageId) as [string, string];
    for (const id of [entry!.messageId, carl, bo]) await env.waitForStatus(id, 'delivered');
    return { ann: entry!.messageId, carl, bo };
  }

  it('sends each copy in its own transaction, with its own VERP sender and unsubscribe link, as one email', async () => {
    const [entry] = await send(
      [
        {
          email: at('ann'),
          name: 'Ann',
          customFields: { first: 'Ann' },
          cc: [{ email: at('carl'), name: 'Carl', customFields: { first: 'Carl' } }],
          bcc: [{ email: at('bo') }],
        },
      ],
      { subject: 'Hello {{first}}', htmlBody: '<p>Hi {{first}}</p><a href="{{unsubscribe}}">unsubscribe</a>' },
    );
    expect(entry!.errorCode).toBeUndefined();
    expect(entry!.copies).toEqual([
      { kind: 'cc', email: at('carl'), messageId: expect.stringMatching(UUID) },
      { kind: 'bcc', email: at('bo'), messageId: expect.stringMatching(UUID) },
    ]);
    const ids = {
      [at('ann')]: entry!.messageId,
      [at('carl')]: entry!.copies![0]!.messageId,
      [at('bo')]: entry!.copies![1]!.messageId,
    };
    await waitForTransactions(3);
    // The sink has each copy before its outcome is recorded (a group commit later): wait for that too.
    for (const id of Object.values(ids)) await env.waitForStatus(id, 'delivered');
    const host = await returnPathHost();
    for (const [address, id] of Object.entries(ids)) {
      const [got, ...more] = received(env.sink, address);
      expect(more).toEqual([]);
      expect(got!.rcptTo).toEqual([address]);
      expect(got!.mailFrom).toBe(`b+${id}@${host}`);
      expect((await env.verifyDkim(got!.raw)).status).toBe('pass');
      const mail = await simpleParser(got!.raw);
      // Every copy shows the same email: To ann, Cc carl, bo in no header, one Message-ID.
      expect(mail.to).toMatchObject({ value: [{ address: at('ann'), name: 'Ann' }] });
      expect(mail.cc).toMatchObject({ value: [{ address: at('carl'), name: 'Carl' }] });
      expect(got!.raw.toString()).not.toMatch(/^bcc:/im);
      expect(got!.raw.toString()).not.toContain(at('bo'));
      expect(mail.messageId).toBe(`<${entry!.messageId}@sender.test>`);
      // Its own unsubscribe link, in List-Unsubscribe and where {{unsubscribe}} was.
      const link = /^List-Unsubscribe: <(https?:[^>]+)>$/m.exec(
        got!.raw
          .toString()
          .split('\r\n\r\n')[0]!
          .replace(/\r\n[ \t]+/g, ' '),
      )?.[1];
      expect(link?.split('/').pop()?.split('.').slice(0, 2)).toEqual(['u', id]);
      expect(mail.html).toContain(link);
      // A copy's custom fields over its recipient's.
      expect(mail.subject).toBe(address === at('carl') ? 'Hello Carl' : 'Hello Ann');
    }
    // The recipient's message lists its copies as given.
    const own = await env.message(entry!.messageId);
    expect(own.to).toMatchObject({
      cc: [{ email: at('carl'), name: 'Carl', customFields: { first: 'Carl' } }],
      bcc: [{ email: at('bo'), name: '', customFields: {} }],
    });
    const copy = await env.message(ids[at('carl')]!);
    expect(copy).toMatchObject({
      status: 'delivered',
      to: { email: at('carl') },
      copyOf: { messageID: entry!.messageId, kind: 'cc', to: { email: at('ann') } },
    });
    expect(await stats()).toMatchObject({ processed: 3, delivered: 3, dropped: 0 });
  });

  it('drops invalid, IP-literal, repeated and suppressed copies, reports each, and sends to the others', async () => {
    const added = await env.api.call('POST', '/subaccount/suppression', {
      sub: env.key,
      body: { unsubscribe: [{ email: at('sup') }], manual: [{ email: at('hidden') }] },
    });
    expect(added.status).toBe(200);
    const [entry] = await send([
      {
        email: at('ann'),
        cc: [
          { email: at('sup') },
          { email: 'not-an-address' },
          { email: 'lit@[127.0.0.1]' },
          { email: at('carl') },
          { email: at('ANN') },
        ],
        bcc: [{ email: 'lit2@[127.0.0.1]' }, { email: at('Hidden') }, { email: at('bo') }, { email: at('carl') }],
      },
    ]);
    expect(entry!.errorCode).toBeUndefined();
    const copies = entry!.copies!;
    expect(copies.map((c) => [c.kind, c.email, c.errorCode, c.message?.split(':')[0]])).toEqual([
      ['cc', at('sup'), 2, 'SUPPRESSED'],
      ['cc', 'not-an-address', 1, 'INVALID_ADDRESS'],
      ['cc', 'lit@[127.0.0.1]', 1, 'INVALID_ADDRESS'],
      ['cc', at('carl'), undefined, undefined],
      ['cc', at('ANN'), 4, 'DUPLICATE_RECIPIENT'],
      ['bcc', 'lit2@[127.0.0.1]', 1, 'INVALID_ADDRESS'],
      ['bcc', at('Hidden'), 2, 'SUPPRESSED'],
      ['bcc', at('bo'), undefined, undefined],
      ['bcc', at('carl'), 4, 'DUPLICATE_RECIPIENT'],
    ]);
    expect(copies[0]!.message).toBe('SUPPRESSED: the cc address is on the suppression list of this sub-account');
    for (const c of copies) expect(c.messageId).toMatch(UUID);

    for (const id of [entry!.messageId, copies[3]!.messageId, copies[7]!.messageId])
      await env.waitForStatus(id, 'delivered');
    const dropped = await env.message(copies[2]!.messageId);
    expect(dropped).toMatchObject({ status: 'dropped', to: { email: 'lit@[127.0.0.1]' } });
    expect(dropped.events.map((e: { type: number }) => e.type)).toEqual([0, 1]);
    // Only the recipient, carl and bo were sent to; no IP literal was ever connected to.
    expect(env.sink.received.map((m) => m.rcptTo).sort()).toEqual([[at('ann')], [at('bo')], [at('carl')]]);
    const mail = await simpleParser(received(env.sink, at('ann'))[0]!.raw);
    expect(mail.cc).toMatchObject({ value: [{ address: at('carl') }] });
    expect(await stats()).toMatchObject({ processed: 10, dropped: 7, delivered: 3 });
  });

  it('sends the copies of a suppressed recipient, and drops those of an invalid one', async () => {
    await env.api.call('POST', '/subaccount/suppression', { sub: env.key, body: { manual: [{ email: at('gone') }] } });
    const [suppressed, invalid] = await send([
      { email: at('gone'), cc: [{ email: at('carl') }] },
      { email: 'no-at-sign', bcc: [{ email: at('bo') }] },
    ]);
    expect(suppressed!.errorCode).toBe(2);
    expect(suppressed!.copies).toEqual([{ kind: 'cc', email: at('carl'), messageId: expect.stringMatching(UUID) }]);
    expect(invalid!.errorCode).toBe(1);
    expect(invalid!.copies).toMatchObject([
      {
        kind: 'bcc',
        email: at('bo'),
        errorCode: 1,
        message: expect.stringContaining('copy of has an invalid address'),
      },
    ]);
    await env.waitForStatus(suppressed!.copies![0]!.messageId, 'delivered');
    expect(env.sink.received.map((m) => m.rcptTo)).toEqual([[at('carl')]]);
  });

  it("a cc's one-click unsubscribe suppresses the cc address only", async () => {
    const { ann, carl } = await sendWithCopies();
    const head = received(env.sink, at('carl'))[0]!
      .raw.toString()
      .split('\r\n\r\n')[0]!
      .replace(/\r\n[ \t]+/g, ' ');
    const link = /^List-Unsubscribe: <(https?:[^>]+)>$/m.exec(head)![1]!;
    const response = await env.api.mailplane.handleLinks({
      method: 'POST',
      path: new URL(link).pathname.replace(/^\/t/, ''),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      query: new URLSearchParams(),
      rawBody: 'List-Unsubscribe=One-Click',
    });
    expect(response.status).toBe(200);
    expect(await suppressions()).toMatchObject([{ email: at('carl'), reason: 1 }]);
    expect(await suppressions()).toHaveLength(1);
    expect(await types(carl)).toContain(7);
    expect(await types(ann)).not.toContain(7);
  });

  it("a DSN for the cc copy suppresses the cc address only; the recipient's message stays delivered", async () => {
    const { ann, carl, bo } = await sendWithCopies();
    const verp = `b+${carl}@${await returnPathHost()}`;
    expect(received(env.sink, at('carl'))[0]!.mailFrom).toBe(verp);
    const info = await report(
      verp,
      dsn(verp, at('carl'), 'failed', '5.1.1', '550 5.1.1 <carl@rcpt.test>: User unknown'),
    );
    expect(info.response).toMatch(/^250 /);
    const copy = await env.waitForStatus(carl, 'hard_bounced');
    // The event names the copy: it is the copy's message, whose `to` is the copy's address.
    expect(copy.events.find((e: { type: number }) => e.type === 4)).toMatchObject({
      messageID: carl,
      to: at('carl'),
      eventMetadata: { source: 'dsn' },
    });
    expect((await env.message(ann)).status).toBe('delivered');
    expect(await types(ann)).toEqual([0, 2]);
    expect((await env.message(bo)).status).toBe('delivered');
    expect(await suppressions()).toMatchObject([{ email: at('carl'), reason: 2 }]);
    expect(await suppressions()).toHaveLength(1);
    expect(await stats()).toMatchObject({ delivered: 3, hardBounced: 1 });
  });

  it('a complaint about the bcc copy (its Return-Path quoted) suppresses the bcc address only', async () => {
    const { ann, carl, bo } = await sendWithCopies();
    const verp = `b+${bo}@${await returnPathHost()}`;
    // The copies share the email's Message-ID; the Return-Path the provider quotes names the copy.
    const info = await report(
      'fbl@bounces.mailplane.test',
      arf('fbl@bounces.mailplane.test', `<${ann}@sender.test>`, { returnPath: verp }),
    );
    expect(info.response).toMatch(/^250 /);
    await vi.waitFor(async () => expect(await types(bo)).toContain(8), { timeout: 15_000, interval: 20 });
    expect(await types(ann)).not.toContain(8);
    expect(await types(carl)).not.toContain(8);
    expect(await suppressions()).toMatchObject([{ email: at('bo'), reason: 3 }]);
    expect(await suppressions()).toHaveLength(1);
  });

  it('a complaint that quotes only the shared Message-ID goes to the copy its Original-Rcpt-To names', async () => {
    const { ann, carl } = await sendWithCopies();
    const complaint = arf('fbl@bounces.mailplane.test', `<${ann}@sender.test>`, { originalRcptTo: at('CARL') });
    expect((await report('fbl@bounces.mailplane.test', complaint)).response).toMatch(/^250 /);
    await vi.waitFor(async () => expect(await types(carl)).toContain(8), { timeout: 15_000, interval: 20 });
    expect(await types(ann)).not.toContain(8);
    expect(await suppressions()).toMatchObject([{ email: at('carl'), reason: 3 }]);
    // Naming the recipient itself, or no one, it is the recipient's.
    expect(
      (
        await report(
          'fbl@bounces.mailplane.test',
          arf('fbl@bounces.mailplane.test', `<${ann}@sender.test>`, { originalRcptTo: at('ann') }),
        )
      ).response,
    ).toMatch(/^250 /);
    await vi.waitFor(async () => expect(await types(ann)).toContain(8), { timeout: 15_000, interval: 20 });
    expect((await suppressions()).map((s) => s.email).sort()).toEqual([at('ann'), at('carl')]);
  });
});
