import { afterEach, describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import nodemailer from 'nodemailer';
import { createMailplane, createSmtpRelay, manualClock, silentLogger, type HttpRequest } from 'mailplane';
import { openKyselyStore } from 'mailplane/storage/kysely';
import { createTestApi, TEST_SECRET, type TestApi } from '../support/api.js';
import { expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';

const MINUTE = 60_000;
const START = Date.UTC(2026, 0, 1);

/** `count` recipients as `to` entries carrying cc and bcc copies: every fifth address is a `to`. */
function recipients(count: number, tag: string) {
  const to = [];
  for (let i = 0; i < count; i += 5) {
    const address = (n: number) => ({ email: `${tag}${i + n}@example.org` });
    to.push({
      ...address(0),
      cc: [address(1), address(2)].slice(0, Math.max(0, Math.min(2, count - i - 1))),
      bcc: [address(3), address(4)].slice(0, Math.max(0, Math.min(2, count - i - 3))),
    });
  }
  return to;
}

describe.each(storeKinds)('API rate limits on %s', (kind) => {
  let api: TestApi;
  let a: Sender;
  let b: Sender;
  const clock = manualClock(START);
  const closers: Array<() => Promise<void>> = [];

  const setUp = async (rateLimits: { requestsPerMinute?: number; recipientsPerMinute?: number } | false) => {
    clock.set(START);
    api = await createTestApi(kind, { clock, rateLimits });
    a = await createSender(api, 'alpha', 'alpha.example.com');
    b = await createSender(api, 'beta', 'beta.example.com');
    // The set-up used some of this minute's allowance: the tests start 10 s into a fresh window.
    clock.set(START + MINUTE + 10_000);
  };
  const send = (sender: Sender, count: number, target = api) =>
    target.call('POST', '/subaccount/email', {
      sub: sender.subAccount.apiKey,
      body: { ...sendBody('news@' + sender.domain.name, []), to: recipients(count, sender.subAccount.name) },
    });
  const listDomains = (sender: Sender) => api.call('GET', '/subaccount/domain', { sub: sender.subAccount.apiKey });

  afterEach(async () => {
    while (closers.length > 0) await closers.pop()!();
    await api.close();
  });

  it('lets the limit-th request through and answers the next with 429, Retry-After and the error body', async () => {
    await setUp({ requestsPerMinute: 5 });
    const reset = String((START + 2 * MINUTE) / 1000);
    for (let i = 1; i <= 5; i++) {
      const ok = await listDomains(a);
      expect(ok.status).toBe(200);
      expect(ok.headers).toMatchObject({
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': String(5 - i),
        'x-ratelimit-reset': reset,
      });
    }
    const refused = await listDomains(a);
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.body).toEqual({
      code: 'RATE_LIMITED',
      message: 'too many requests: this key may make 5 requests a minute; retry in 50 s',
    });
    expect(refused.headers).toMatchObject({
      'retry-after': '50',
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': reset,
      'content-type': 'application/json; charset=utf-8',
    });
    // Errors after authentication count too, and carry the headers.
    const stillRefused = await api.call('GET', '/subaccount/domain/999', { sub: a.subAccount.apiKey });
    expect(stillRefused.status).toBe(429);

    // Per key: the other sub-account's key and the account key are unaffected.
    expect((await listDomains(b)).headers['x-ratelimit-remaining']).toBe('4');
    expect((await api.call('GET', '/account/subaccount', { account: api.accountKey })).status).toBe(200);

    clock.advance(49_000);
    expect((await listDomains(a)).status).toBe(429);
    clock.advance(1_000);
    const again = await listDomains(a);
    expect(again.status).toBe(200);
    expect(again.headers['x-ratelimit-remaining']).toBe('4');
  });

  it('counts the recipients of a send (to, cc and bcc), not its requests', async () => {
    await setUp({ requestsPerMinute: 2, recipientsPerMinute: 150 });
    const first = await send(a, 100);
    expect(first.status).toBe(200);
    expect(first.headers).toMatchObject({ 'x-ratelimit-limit': '150', 'x-ratelimit-remaining': '50' });

    const tooMany = await send(a, 60);
    expectError(tooMany, 429, 'RATE_LIMITED');
    expect(tooMany.body.message).toBe(
      'too many recipients: this sub-account may send to 150 recipients a minute and 50 remain in this minute, fewer than the 60 of this request; retry in 50 s',
    );
    expect(tooMany.headers).toMatchObject({ 'retry-after': '50', 'x-ratelimit-remaining': '50' });
    // Nothing of the refused request was accepted.
    expect((await contextOf(api.mailplane).store.jobs.countByState('deliver-batch')).pending).toBe(1);

    // The refused send used nothing: exactly the 50 left still fit (sends are not counted as requests).
    const rest = await send(a, 50);
    expect(rest.status).toBe(200);
    expect(rest.headers['x-ratelimit-remaining']).toBe('0');
    expectError(await send(a, 1), 429, 'RATE_LIMITED');
    // A malformed send costs one unit: refused here, as the allowance is spent.
    expectError(
      await api.call('POST', '/subaccount/email', { sub: a.subAccount.apiKey, body: { to: 'x' } }),
      429,
      'RATE_LIMITED',
    );

    expect((await send(b, 150)).status).toBe(200);
    const larger = await send(b, 151);
    expectError(larger, 429, 'RATE_LIMITED');
    expect(larger.body.message).toMatch(
      /^this request names 151 recipients, more than this sub-account may send to in a minute \(150\)/,
    );

    clock.advance(50_000);
    expect((await send(a, 150)).status).toBe(200);
  });

  it('shares the limit between two instances on one database', async () => {
    await setUp({ requestsPerMinute: 10, recipientsPerMinute: 100 });
    const store = await openKyselyStore({ url: api.url, maxConnections: 5 });
    const other = createMailplane({
      store,
      secret: TEST_SECRET,
      logger: silentLogger,
      clock,
      rateLimits: { requestsPerMinute: 10, recipientsPerMinute: 100 },
    });
    closers.push(() => other.close());
    const call = (node: typeof other, i: number) => {
      const request: HttpRequest = {
        method: 'GET',
        path: '/subaccount/domain',
        headers: { 'x-subaccount-apikey': a.subAccount.apiKey },
        query: new URLSearchParams(),
        rawBody: '',
      };
      return i % 2 === 0 ? api.mailplane.handle(request) : node.handle(request);
    };
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => call(other, i)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(10);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(6);

    expect((await send(a, 70)).status).toBe(200);
    const request: HttpRequest = {
      method: 'POST',
      path: '/subaccount/email',
      headers: { 'x-subaccount-apikey': a.subAccount.apiKey, 'content-type': 'application/json' },
      query: new URLSearchParams(),
      rawBody: JSON.stringify({ ...sendBody('news@alpha.example.com', []), to: recipients(40, 'other') }),
    };
    const onOther = await other.handle(request);
    expect(onOther.status).toBe(429);
    expect(onOther.headers['x-ratelimit-remaining']).toBe('30');
  });

  it('counts the recipients a sub-account relays over SMTP against the same allowance as its API sends', async () => {
    await setUp({ recipientsPerMinute: 5 });
    const relay = createSmtpRelay(api.mailplane);
    closers.push(() => relay.close());
    const port = (await relay.listen(0, '127.0.0.1')).port;
    const relayOf = (sender: Sender) => {
      const { username: user, password: pass } = sender.subAccount.smtpAuths[0]!;
      const client = nodemailer.createTransport({ host: '127.0.0.1', port, ignoreTLS: true, auth: { user, pass } });
      return (to: string[]) =>
        client.sendMail({
          envelope: { from: `news@${sender.domain.name}`, to },
          raw: `From: news@${sender.domain.name}\r\nSubject: relayed\r\n\r\nhi\r\n`,
        });
    };
    const relayA = relayOf(a);
    expect((await relayA(['r1@example.org', 'r2@example.org', 'r3@example.org'])).response).toMatch(/^250 /);
    expect((await send(a, 2)).headers['x-ratelimit-remaining']).toBe('0');
    // The allowance is used up by the two together: the relay answers 450, to be retried.
    await expect(relayA(['r4@example.org'])).rejects.toMatchObject({
      responseCode: 450,
      response:
        '450 4.7.1 too many recipients: this sub-account may send to 5 recipients a minute and 0 remain in this minute, fewer than the 1 of this request; retry in 50 s',
    });
    expectError(await send(a, 1), 429, 'RATE_LIMITED');
    // Another sub-account's allowance is its own; and the next minute is a fresh one.
    expect((await relayOf(b)(['s1@example.org'])).response).toMatch(/^250 /);
    clock.advance(MINUTE);
    expect((await relayA(['r5@example.org'])).response).toMatch(/^250 /);
    // Nothing was stored for the refused message.
    const stored = await api.call('GET', '/subaccount/message', {
      sub: a.subAccount.apiKey,
      query: { recipient: 'r4@example.org' },
    });
    expect(stored.body.items).toEqual([]);
  });

  it('prunes the counters of past windows when a new window starts', async () => {
    await setUp({ requestsPerMinute: 10 });
    await listDomains(a);
    await listDomains(b);
    clock.advance(2 * MINUTE);
    await api.call('GET', '/account/subaccount', { account: api.accountKey });
    // Pruning runs in the background; by the time it ran, nothing older than the last window is left.
    await expect
      .poll(() => contextOf(api.mailplane).store.rateLimits.prune(START + 2 * MINUTE, 100), { timeout: 10_000 })
      .toBe(0);
    const fresh = await listDomains(a);
    expect(fresh.headers['x-ratelimit-remaining']).toBe('9');
  });

  it('is off with rateLimits: false', async () => {
    await setUp(false);
    for (let i = 0; i < 20; i++) {
      const ok = await listDomains(a);
      expect(ok.status).toBe(200);
      expect(ok.headers['x-ratelimit-limit']).toBeUndefined();
    }
    expect((await send(a, 1000)).status).toBe(200);
    const [usage] = await contextOf(api.mailplane).store.rateLimits.hit([
      { bucket: `subaccount:${a.subAccount.id}:requests`, windowStart: START + MINUTE, cost: 0, limit: 1 },
    ]);
    expect(usage!.used).toBe(0);
  });

  it('keeps the defaults out of the way of ordinary use', async () => {
    await setUp(undefined as never);
    const ok = await send(a, 1000);
    expect(ok.status).toBe(200);
    expect(ok.headers).toMatchObject({ 'x-ratelimit-limit': '600000', 'x-ratelimit-remaining': '599000' });
    expect((await listDomains(a)).headers['x-ratelimit-limit']).toBe('6000');
  });
});
