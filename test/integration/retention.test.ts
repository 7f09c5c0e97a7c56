import { beforeEach, describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { hourOfMs, manualClock } from 'mailplane';
import { useTestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';

const DAY = 86_400_000;

describe.each(storeKinds)('retention on %s', (kind) => {
  let clock: ReturnType<typeof manualClock>;
  const api = useTestApi(kind, () => {
    clock = manualClock(Date.UTC(2026, 0, 10));
    // Two rows per statement and two statements per run: the 7 old rows of each table take several runs.
    return { clock, retention: { days: 30, batchSize: 2, batchesPerRun: 2 }, jobs: { pollIntervalMs: 20 } };
  });
  let shop: Sender;
  const send = async (to: string[]) =>
    (
      await api.call('POST', '/subaccount/email', {
        sub: shop.subAccount.apiKey,
        body: sendBody('news@shop.example.com', to),
      })
    ).body.map((e: { messageId: string }) => e.messageId) as string[];
  const listed = async () => {
    const messages = await api.call('GET', '/account/message', { account: api.accountKey, query: { limit: '1000' } });
    const events = await api.call('GET', '/account/event', { account: api.accountKey, query: { limit: '1000' } });
    return {
      messages: messages.body.items.map((m: { messageID: string }) => m.messageID).sort(),
      events: events.body.items.length,
    };
  };
  const aggregate = async () =>
    (
      await api.call('GET', '/subaccount/stat/aggregate', {
        sub: shop.subAccount.apiKey,
        query: { from: '2026-01-01', to: '2026-12-31' },
      })
    ).body;

  beforeEach(async () => {
    shop = await createSender(api, 'shop', 'shop.example.com');
  });

  it('deletes messages and events older than the retention in bounded runs, keeping newer ones and the statistics', async () => {
    const old = await send(Array.from({ length: 7 }, (_, i) => `old${i}@example.org`));
    clock.advance(20 * DAY);
    const recent = await send(['new@example.org']);
    const counters = await aggregate();
    expect(counters).toMatchObject({ processed: 8 });
    expect((await listed()).messages).toHaveLength(8);

    await api.mailplane.start();
    // 25 days after the recent send, 45 after the old ones: only the old ones are past 30 days.
    clock.advance(25 * DAY);
    contextOf(api.mailplane).jobs.notify();
    const deadline = Date.now() + 20_000;
    while ((await listed()).messages.length > 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      contextOf(api.mailplane).jobs.notify();
    }
    expect(await listed()).toEqual({ messages: recent, events: 1 });
    expect(old).toHaveLength(7);
    for (const id of old)
      expect((await api.call('GET', `/account/message/${id}`, { account: api.accountKey })).status).toBe(406);
    expect(await aggregate()).toEqual(counters);
    // One job row carries retention: it waits for its next run.
    expect(await contextOf(api.mailplane).store.jobs.countByState('retention')).toMatchObject({ pending: 1, dead: 0 });
  });

  it('deletes the reputation counters older than 8 days in bounded runs, keeping newer hours', async () => {
    const store = contextOf(api.mailplane).store;
    const hours = async (from: number, to: number) =>
      (await store.reputation.total({ accountId: shop.subAccount.accountId }, from, to)).processed;
    const start = hourOfMs(clock.now());
    // Three hours of sends: three buckets, more than one statement (2 rows) deletes.
    for (let hour = 0; hour < 3; hour += 1) {
      await send([`old${hour}@example.org`]);
      clock.advance(3_600_000);
    }
    clock.advance(7 * DAY - 3 * 3_600_000);
    await send(['new@example.org']);
    const recent = hourOfMs(clock.now());
    expect(await hours(start, recent)).toBe(4);

    // Nine days after the first sends, two after the last.
    clock.advance(2 * DAY);
    await api.mailplane.start();
    contextOf(api.mailplane).jobs.notify();
    const deadline = Date.now() + 20_000;
    while ((await hours(start, start + 2)) > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      contextOf(api.mailplane).jobs.notify();
    }
    expect(await hours(start, start + 2)).toBe(0);
    expect(await hours(recent, recent)).toBe(1);
  });

  it('deletes received messages older than the retention in bounded runs, keeping newer ones', async () => {
    const store = contextOf(api.mailplane).store;
    const receive = (subject: string) =>
      store.inbound.insertMessage({
        id: contextOf(api.mailplane).ids.uuid(),
        accountId: shop.subAccount.accountId,
        subAccountId: shop.subAccount.id,
        routeId: null,
        receivedAt: BigInt(clock.now()) * 1_000_000n,
        mailFrom: 'ann@example.org',
        rcptTo: 'support@shop.example.com',
        from: 'ann@example.org',
        subject,
        messageIdHeader: '',
        inReplyToMessageId: null,
        size: 5,
        raw: Buffer.from('Hello'),
        auth: { spf: 'none', dkim: 'none', dmarc: 'none', arc: 'none' },
        status: 'stored',
        detail: '',
        updated: BigInt(clock.now()) * 1_000_000n,
      });
    // Five old messages: more than one statement (2 rows) deletes.
    for (let i = 0; i < 5; i += 1) await receive(`old ${i}`);
    clock.advance(20 * DAY);
    await receive('recent');
    const subjects = async () =>
      (
        await api.call('GET', '/subaccount/inbound/message', { sub: shop.subAccount.apiKey, query: { limit: 100 } })
      ).body.map((m: { subject: string }) => m.subject);
    expect(await subjects()).toHaveLength(6);

    clock.advance(25 * DAY);
    await api.mailplane.start();
    contextOf(api.mailplane).jobs.notify();
    const deadline = Date.now() + 20_000;
    while ((await subjects()).length > 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      contextOf(api.mailplane).jobs.notify();
    }
    expect(await subjects()).toEqual(['recent']);
  });

  it("keeps a sub-account's mail for its own retentionDays, set through the sub-account API, in bounded runs", async () => {
    const { runRetention } = await import('../../src/retention/jobs.js');
    const blog = await createSender(api, 'blog', 'blog.example.com');
    const plain = await createSender(api, 'plain', 'plain.example.com');
    const put = (id: number, body: object) =>
      api.call('PUT', `/account/subaccount/${id}`, { account: api.accountKey, body });
    expect((await put(shop.subAccount.id, { retentionDays: 90 })).body).toMatchObject({
      id: shop.subAccount.id,
      retentionDays: 90,
    });
    expect((await put(blog.subAccount.id, { retentionDays: 7 })).status).toBe(200);
    expect(
      (await api.call('GET', `/account/subaccount/${blog.subAccount.id}`, { account: api.accountKey })).body
        .retentionDays,
    ).toBe(7);
    expect(
      (await api.call('GET', `/account/subaccount/${plain.subAccount.id}`, { account: api.accountKey })).body
        .retentionDays,
    ).toBeNull();
    const sendAs = async (who: Sender, domain: string, count: number) =>
      (
        await api.call('POST', '/subaccount/email', {
          sub: who.subAccount.apiKey,
          body: sendBody(
            `news@${domain}`,
            Array.from({ length: count }, (_, i) => `r${i}@example.org`),
          ),
        })
      ).body.map((e: { messageId: string }) => e.messageId) as string[];
    const shopMail = await send(['s1@example.org', 's2@example.org']);
    const blogMail = await sendAs(blog, 'blog.example.com', 5);
    const plainMail = await sendAs(plain, 'plain.example.com', 3);
    const counters = await aggregate();
    const ctx = contextOf(api.mailplane);
    /**
     * Runs the job's work until nothing old is left. A run deletes at most 2 full batches of 2 rows
     * per table, plus less than a batch from each of its 3 passes (shop, blog, the others).
     */
    const drain = async () => {
      for (let runs = 0; runs < 20; runs += 1) {
        const run = await runRetention(ctx);
        expect(run.messages).toBeLessThanOrEqual(2 * 2 + 3);
        expect(run.events).toBeLessThanOrEqual(2 * 2 + 3);
        if (!run.more) return;
      }
      throw new Error('retention did not finish');
    };

    clock.advance(10 * DAY);
    await drain();
    expect((await listed()).messages).toEqual([...shopMail, ...plainMail].sort());
    clock.advance(35 * DAY);
    await drain();
    expect((await listed()).messages).toEqual([...shopMail].sort());
    // Back to the instance's 30 days: the 45-day-old mail goes at the next run.
    expect((await put(shop.subAccount.id, { retentionDays: null })).body.retentionDays).toBeNull();
    await drain();
    expect((await listed()).messages).toEqual([]);
    expect(blogMail).toHaveLength(5);
    expect(await aggregate()).toEqual(counters);
  });

  it('answers 422 for a retentionDays that is not a whole number of days from 1 to 3650', async () => {
    for (const retentionDays of [0, 3651, 1.5, '30', -1]) {
      const answer = await api.call('PUT', `/account/subaccount/${shop.subAccount.id}`, {
        account: api.accountKey,
        body: { retentionDays },
      });
      expect(answer.status).toBe(422);
      expect(answer.body.code).toBe('VALIDATION_FAILED');
    }
    expect(
      (
        await api.call('PUT', `/account/subaccount/${shop.subAccount.id}`, {
          account: api.accountKey,
          body: { retentionDays: 3650 },
        })
      ).body.retentionDays,
    ).toBe(3650);
  });

  it('keeps everything with days 0', async () => {
    const { runRetention } = await import('../../src/retention/jobs.js');
    await send(['a@example.org']);
    clock.advance(400 * DAY);
    const ctx = contextOf(api.mailplane);
    const keepAll = { ...ctx, config: { ...ctx.config, retention: { ...ctx.config.retention, days: 0 } } };
    expect(await runRetention(keepAll)).toEqual({ messages: 0, events: 0, more: false });
    expect((await listed()).messages).toHaveLength(1);
    // A sub-account's own retention still applies when the instance keeps everything.
    await api.call('PUT', `/account/subaccount/${shop.subAccount.id}`, {
      account: api.accountKey,
      body: { retentionDays: 365 },
    });
    expect(await runRetention(keepAll)).toMatchObject({ messages: 1 });
    expect((await listed()).messages).toHaveLength(0);
  });
});
