import { beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from 'mailplane';
import { useTestApi } from '../support/api.js';
import { expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { schemaErrors } from '../support/openapi.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';

const START = Date.UTC(2026, 2, 10, 12);
const DAY = 86_400_000;

describe.each(storeKinds)('activity API on %s', (kind) => {
  let clock: ReturnType<typeof manualClock>;
  const api = useTestApi(kind, () => {
    clock = manualClock(START);
    return { clock };
  });
  let shop: Sender;
  let blog: Sender;
  const send = (
    sender: Sender,
    to: string[],
    extra: Record<string, unknown> = {},
    from = `news@${sender.domain.name}`,
  ) => api.call('POST', '/subaccount/email', { sub: sender.subAccount.apiKey, body: sendBody(from, to, extra) });
  const ids = (body: { items: Array<{ messageID: string }> }) => body.items.map((m) => m.messageID);

  beforeEach(async () => {
    shop = await createSender(api, 'shop', 'shop.example.com');
    blog = await createSender(api, 'blog', 'blog.example.com');
  });

  it('lists messages newest first with each filter, for the account and for each sub-account', async () => {
    const first = (await send(shop, ['Ada@Example.org'], { groups: ['welcome'] })).body[0].messageId;
    clock.advance(DAY);
    const second = (await send(shop, ['bob@example.org'], { groups: ['promo'] }, 'Sales@shop.example.com')).body[0]
      .messageId;
    clock.advance(1000);
    const third = (await send(blog, ['ada@example.org'])).body[0].messageId;

    const list = (query: Record<string, string> = {}) =>
      api.call('GET', '/account/message', { account: api.accountKey, query });
    const all = await list();
    expect(all.status).toBe(200);
    expect(ids(all.body)).toEqual([third, second, first]);
    expect(all.body.nextCursor).toBeNull();
    expect(all.body.items[0]).toMatchObject({
      messageID: third,
      status: 'queued',
      from: { email: 'news@blog.example.com' },
    });
    expect(all.body.items[0].events).toBeUndefined();
    const { status: _status, ...wire } = all.body.items[0];
    expect(schemaErrors('Message', { ...wire, events: [] })).toEqual([]);

    expect(ids((await list({ recipient: 'ADA@example.ORG' })).body)).toEqual([third, first]);
    expect(ids((await list({ sender: 'sales@SHOP.example.com' })).body)).toEqual([second]);
    expect(ids((await list({ group: 'welcome' })).body)).toEqual([first]);
    expect(ids((await list({ status: 'queued', subAccountId: String(blog.subAccount.id) })).body)).toEqual([third]);
    expect(ids((await list({ status: 'delivered' })).body)).toEqual([]);
    expect(ids((await list({ ippool: 'no-such-pool' })).body)).toEqual([]);
    expect(ids((await list({ from: '2026-03-11', to: '2026-03-11' })).body)).toEqual([third, second]);
    expect(ids((await list({ to: '2026-03-10' })).body)).toEqual([first]);
    // Bounds past the 64-bit columns (year 2262 on) mean "no bound", not a failure.
    expect(ids((await list({ to: '9999-12-31', from: '99999999999999999999' })).body)).toEqual([]);
    expect(ids((await list({ to: '9999-12-31' })).body)).toEqual([third, second, first]);
    const ns = String(BigInt(START + DAY) * 1_000_000n);
    expect(ids((await list({ from: ns, to: String(BigInt(START + DAY + 1000) * 1_000_000n) })).body)).toEqual([second]);

    // A sub-account key sees its own messages only, whatever it asks for.
    const own = await api.call('GET', '/subaccount/message', {
      sub: blog.subAccount.apiKey,
      query: { subAccountId: String(shop.subAccount.id) },
    });
    expect(ids(own.body)).toEqual([third]);
    const shopOwn = await api.call('GET', '/subaccount/message', {
      sub: shop.subAccount.apiKey,
      query: { recipient: 'ada@example.org' },
    });
    expect(ids(shopOwn.body)).toEqual([first]);
  });

  it('answers a sub-account key its own message as the account key does, and another sub-account’s as unknown', async () => {
    const mine = (await send(shop, ['ada@example.org'])).body[0].messageId as string;
    const theirs = (await send(blog, ['bob@example.org'])).body[0].messageId as string;
    const byAccount = await api.call('GET', `/account/message/${mine}`, { account: api.accountKey });
    const bySub = await api.call('GET', `/subaccount/message/${mine.toUpperCase()}`, { sub: shop.subAccount.apiKey });
    expect(bySub.status).toBe(200);
    expect(bySub.body).toEqual(byAccount.body);
    expect(bySub.body.events.map((e: { type: number }) => e.type)).toEqual([0]);
    for (const id of [theirs, '00000000-0000-7000-8000-000000000000', 'not-a-uuid']) {
      const refused = await api.call('GET', `/subaccount/message/${id}`, { sub: shop.subAccount.apiKey });
      expect(refused.status, id).toBe(406);
      expect(refused.body.code).toBe('MESSAGE_NOT_FOUND');
    }
    // The account key is the wrong kind for the sub-account route.
    expect((await api.call('GET', `/subaccount/message/${mine}`, { sub: api.accountKey })).status).toBe(401);
  });

  it('pages by cursor without repeats or gaps while new mail arrives', async () => {
    const sent: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      sent.push(
        ...(await send(shop, [`r${i}a@example.org`, `r${i}b@example.org`])).body.map(
          (e: { messageId: string }) => e.messageId,
        ),
      );
      clock.advance(1000);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page += 1) {
      const result = await api.call('GET', '/account/message', {
        account: api.accountKey,
        query: { limit: '3', ...(cursor && { cursor }) },
      });
      seen.push(...ids(result.body));
      // New mail between pages lands before the first page, never inside the ones still to come.
      await send(shop, [`late${page}@example.org`]);
      clock.advance(1000);
      cursor = result.body.nextCursor ?? undefined;
      if (!cursor) break;
    }
    expect(seen).toHaveLength(10);
    expect(new Set(seen)).toEqual(new Set(sent));
    // Same-instant messages of one send come in id order, descending.
    expect(seen.slice(0, 2)).toEqual([sent[9], sent[8]].sort().reverse());
  });

  it('lists events with the type filter, and refuses bad parameters with 422', async () => {
    const id = (await send(shop, ['a@example.org'])).body[0].messageId;
    await send(blog, ['b@example.org']);
    const events = await api.call('GET', '/subaccount/event', { sub: shop.subAccount.apiKey });
    expect(events.status).toBe(200);
    expect(events.body.items.map((e: { messageID: string; type: number }) => [e.messageID, e.type])).toEqual([[id, 0]]);
    for (const event of events.body.items) expect(schemaErrors('Event', event)).toEqual([]);
    const typed = await api.call('GET', '/account/event', { account: api.accountKey, query: { type: '2,3' } });
    expect(typed.body.items).toEqual([]);
    const all = await api.call('GET', '/account/event', { account: api.accountKey, query: { type: '0', limit: '1' } });
    expect(all.body.items).toHaveLength(1);
    const next = await api.call('GET', '/account/event', {
      account: api.accountKey,
      query: { type: '0', limit: '1', cursor: all.body.nextCursor },
    });
    expect(next.body.items).toHaveLength(1);
    expect(next.body.items[0].eventID).not.toBe(all.body.items[0].eventID);

    // One message's events, by its id in any case; another sub-account's message has none for this key.
    const other = (await send(blog, ['c@example.org'])).body[0].messageId as string;
    const byId = await api.call('GET', '/account/event', {
      account: api.accountKey,
      query: { messageId: id.toUpperCase() },
    });
    expect(byId.body.items.map((e: { messageID: string; type: number }) => [e.messageID, e.type])).toEqual([[id, 0]]);
    expect(
      (await api.call('GET', '/subaccount/event', { sub: shop.subAccount.apiKey, query: { messageId: other } })).body
        .items,
    ).toEqual([]);
    expect(
      ids((await api.call('GET', '/account/message', { account: api.accountKey, query: { messageId: other } })).body),
    ).toEqual([other]);

    const queries: Array<Record<string, string>> = [
      { cursor: 'bm9wZQ' },
      { from: 'yesterday' },
      { status: 'lost' },
      { type: '10' },
      { limit: '0' },
      { unknown: '1' },
      { messageId: 'not-an-id' },
    ];
    for (const query of queries) {
      const bad = await api.call('GET', '/account/message', { account: api.accountKey, query });
      expectError(bad, 422);
    }
    const missing = await api.call('GET', '/subaccount/event', {});
    expect(missing.status).toBe(401);
  });
});
