import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from 'mailplane';
import { createTestApi, type TestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';

const DAY = 86_400_000;

describe.each(storeKinds)('retention on %s', (kind) => {
  let api: TestApi;
  let clock: ReturnType<typeof manualClock>;
  let shop: Sender;
  const send = async (to: string[]) =>
    (await api.call('POST', '/subaccount/email', { sub: shop.subAccount.apiKey, body: sendBody('news@shop.example.com', to) })).body.map(
      (e: { messageId: string }) => e.messageId,
    ) as string[];
  const listed = async () => {
    const messages = await api.call('GET', '/account/message', { account: api.accountKey, query: { limit: '1000' } });
    const events = await api.call('GET', '/account/event', { account: api.accountKey, query: { limit: '1000' } });
    return { messages: messages.body.items.map((m: { messageID: string }) => m.messageID).sort(), events: events.body.items.length };
  };
  const aggregate = async () =>
    (await api.call('GET', '/subaccount/stat/aggregate', { sub: shop.subAccount.apiKey, query: { from: '2026-01-01', to: '2026-12-31' } })).body;

  beforeEach(async () => {
    clock = manualClock(Date.UTC(2026, 0, 10));
    // Two rows per statement and two statements per run: the 7 old rows of each table take several runs.
    api = await createTestApi(kind, { clock, retention: { days: 30, batchSize: 2, batchesPerRun: 2 }, jobs: { pollIntervalMs: 20 } });
    shop = await createSender(api, 'shop', 'shop.example.com');
  });
  afterEach(() => api.close());

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
    api.mailplane.context.jobs.notify();
    const deadline = Date.now() + 20_000;
    while ((await listed()).messages.length > 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      api.mailplane.context.jobs.notify();
    }
    expect(await listed()).toEqual({ messages: recent, events: 1 });
    expect(old).toHaveLength(7);
    for (const id of old) expect((await api.call('GET', `/account/message/${id}`, { account: api.accountKey })).status).toBe(406);
    expect(await aggregate()).toEqual(counters);
    // One job row carries retention: it waits for its next run.
    expect(await api.mailplane.context.store.jobs.countByState('retention')).toMatchObject({ pending: 1, dead: 0 });
  });

  it('keeps everything with days 0', async () => {
    const { runRetention } = await import('../../src/retention/jobs.js');
    await send(['a@example.org']);
    clock.advance(400 * DAY);
    const ctx = api.mailplane.context;
    expect(await runRetention({ ...ctx, config: { ...ctx.config, retention: { ...ctx.config.retention, days: 0 } } })).toEqual({ messages: 0, events: 0, more: false });
    expect((await listed()).messages).toHaveLength(1);
  });
});
