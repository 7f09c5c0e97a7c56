import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { createMailplane, manualClock, silentLogger, type HttpRequest, type Mailplane } from 'mailplane';
import { openKyselyStore } from 'mailplane/storage/kysely';
import { purgeIdempotencyKeys } from '../../src/retention/jobs.js';
import { createTestApi, TEST_SECRET, useTestApi } from '../support/api.js';
import { expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';

const HOUR = 3_600_000;

describe.each(storeKinds)('idempotent sends (Idempotency-Key) on %s', (kind) => {
  let clock: ReturnType<typeof manualClock>;
  const api = useTestApi(kind, () => {
    clock = manualClock(Date.UTC(2026, 2, 1, 12));
    return { clock };
  });
  let shop: Sender;
  const closers: Array<() => Promise<void>> = [];
  const send = (body: unknown, key?: string, sub = shop.subAccount.apiKey) =>
    api.call('POST', '/subaccount/email', {
      sub,
      body,
      ...(key !== undefined && { headers: { 'idempotency-key': key } }),
    });
  const processed = async (sub = shop.subAccount.apiKey) => {
    const day = new Date(clock.now()).toISOString().slice(0, 10);
    return (await api.call('GET', '/subaccount/stat/aggregate', { sub, query: { from: '2026-01-01', to: day } })).body
      .processed as number;
  };
  const queuedJobs = async () => (await contextOf(api.mailplane).store.jobs.countByState('deliver-batch')).pending;

  beforeEach(async () => {
    shop = await createSender(api, 'shop', 'shop.example.com');
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('answers a repeat with the first response byte for byte, marked as a replay, and sends once', async () => {
    const body = sendBody('news@shop.example.com', ['a@example.org', 'b@example.org'], { groups: ['welcome'] });
    const first = await send(body, 'order-1001');
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(first.text).toMatch(/"submittedAt":\d{19}/);

    clock.advance(60_000);
    // The same request with its keys in another order is the same request.
    const reordered = {
      subject: body.subject,
      textBody: body.textBody,
      groups: ['welcome'],
      to: body.to,
      from: body.from,
    };
    const again = await send(reordered, 'order-1001');
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toMatch(/^application\/json/);
    expect(again.text).toBe(first.text);

    expect(await processed()).toBe(2);
    expect(await queuedJobs()).toBe(1);
    const message = await api.call('GET', `/account/message/${first.body[0].messageId}`, { account: api.accountKey });
    expect(message.status).toBe(200);
  });

  it('refuses the same key with a different body (422 IDEMPOTENCY_KEY_REUSED) and sends nothing', async () => {
    expect((await send(sendBody('news@shop.example.com', ['a@example.org']), 'k1')).status).toBe(200);
    const other = await send(sendBody('news@shop.example.com', ['c@example.org']), 'k1');
    expectError(other, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(other.body.message).toMatch(/different request/);
    expect(await processed()).toBe(1);
  });

  it('takes keys of up to 255 characters and refuses longer or empty ones with 422, sending nothing', async () => {
    const long = await send(sendBody('news@shop.example.com', ['a@example.org']), 'k'.repeat(256));
    expectError(long, 422, 'IDEMPOTENCY_KEY_TOO_LONG');
    expectError(
      await send(sendBody('news@shop.example.com', ['a@example.org']), '   '),
      422,
      'IDEMPOTENCY_KEY_INVALID',
    );
    expect(await processed()).toBe(0);
    expect((await send(sendBody('news@shop.example.com', ['a@example.org']), 'k'.repeat(255))).status).toBe(200);
    expect(
      (await send(sendBody('news@shop.example.com', ['a@example.org']), 'k'.repeat(255))).headers[
        'idempotent-replayed'
      ],
    ).toBe('true');
    expect(await processed()).toBe(1);
  });

  it('keeps keys per sub-account: another sub-account’s same key is its own send', async () => {
    const other = await createSender(api, 'other', 'other.example.com');
    const mine = await send(sendBody('news@shop.example.com', ['a@example.org']), 'shared-key');
    const theirs = await send(
      sendBody('news@other.example.com', ['a@example.org']),
      'shared-key',
      other.subAccount.apiKey,
    );
    expect(theirs.status).toBe(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body[0].messageId).not.toBe(mine.body[0].messageId);
    expect(await processed(other.subAccount.apiKey)).toBe(1);
  });

  it('stores no key for a refused send: the retry after the fix sends', async () => {
    const body = sendBody('news@shop.example.com', ['a@example.org']);
    const block = (blocked: boolean) =>
      api.call('PUT', `/account/subaccount/${shop.subAccount.id}`, { account: api.accountKey, body: { blocked } });
    await block(true);
    expectError(await send(body, 'retry-me'), 403, 'SUBACCOUNT_BLOCKED');
    await block(false);
    const sent = await send(body, 'retry-me');
    expect(sent.status).toBe(200);
    expect(sent.headers['idempotent-replayed']).toBeUndefined();
    expect(await processed()).toBe(1);
  });

  it('forgets a key after 24 hours, and the retention purge deletes it', async () => {
    const body = sendBody('news@shop.example.com', ['a@example.org']);
    await send(body, 'daily');
    clock.advance(23 * HOUR);
    expect((await send(body, 'daily')).headers['idempotent-replayed']).toBe('true');
    clock.advance(HOUR);
    const fresh = await send(body, 'daily');
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(await processed()).toBe(2);
    clock.advance(24 * HOUR);
    await send(body, 'other-key');
    expect(await purgeIdempotencyKeys(contextOf(api.mailplane))).toEqual({ deleted: 1, more: false });
    expect(
      await contextOf(api.mailplane).store.idempotency.find(shop.subAccount.id, 'other-key', clock.now()),
    ).not.toBeNull();
  });

  it('works with the machine clock, whose milliseconds have fractions', async () => {
    const live = await createTestApi(kind);
    closers.push(() => live.close());
    const sender = await createSender(live, 'live', 'live.example.com');
    const call = () =>
      live.call('POST', '/subaccount/email', {
        sub: sender.subAccount.apiKey,
        body: sendBody('news@live.example.com', ['a@example.org']),
        headers: { 'idempotency-key': 'live-1' },
      });
    const first = await call();
    expect(first.status, first.text).toBe(200);
    const again = await call();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await purgeIdempotencyKeys(contextOf(live.mailplane))).toEqual({ deleted: 0, more: false });
  });

  it('sends once when many requests with one key arrive at once', async () => {
    const body = sendBody('news@shop.example.com', ['a@example.org']);
    const answers = await Promise.all(Array.from({ length: 12 }, () => send(body, 'burst')));
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(await processed()).toBe(1);
    expect(await queuedJobs()).toBe(1);
  });

  it.skipIf(kind !== 'postgres')(
    'sends once when two instances on one PostgreSQL database get one key at once',
    async () => {
      const store = await openKyselyStore({ url: api.url, maxConnections: 5 });
      const other: Mailplane = createMailplane({ store, secret: TEST_SECRET, logger: silentLogger, clock });
      closers.push(() => other.close());
      const request = (key: string): HttpRequest => ({
        method: 'POST',
        path: '/subaccount/email',
        headers: {
          'x-subaccount-apikey': shop.subAccount.apiKey,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        query: new URLSearchParams(),
        rawBody: JSON.stringify(sendBody('news@shop.example.com', ['a@example.org', 'b@example.org'])),
      });
      for (const key of ['node-race-1', 'node-race-2', 'node-race-3']) {
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? api.mailplane : other).handle(request(key))),
        );
        expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
        expect(new Set(answers.map((a) => a.body)).size).toBe(1);
        expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(7);
      }
      expect(await processed()).toBe(6);
      expect(await queuedJobs()).toBe(3);
    },
  );
});
