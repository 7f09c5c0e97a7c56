/**
 * The posts of a `webhook` route beyond its first ones (src/inbound/webhook-job.ts) and the post log
 * (`GET /subaccount/inbound/message/{id}/attempt`), on the inbound bench (test/support/inbound.ts):
 * a real listener on loopback, a real webhook receiver, real SQLite and PostgreSQL. The bench's clock
 * is manual and never moved here unless a test says so: a post put off `busyDelayMs` would never come.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { storeKinds } from '../support/databases.js';
import { startInboundEnv, type InboundEnv } from '../support/inbound.js';

/** Recipients of the burst: more than a route's slots (2) and the jobs that wait for them at any pace. */
const BURST = 10;

describe.each(storeKinds)('inbound webhook posts (%s)', (kind) => {
  let bench: InboundEnv | undefined;
  afterEach(async () => {
    await bench?.close();
    bench = undefined;
  });

  const attempts = (id: string, query?: Record<string, string | number>) =>
    bench!.env.api.call('GET', `/subaccount/inbound/message/${id}/attempt`, {
      sub: bench!.env.key,
      ...(query && { query }),
    });

  it('posts a burst to one route at the receiver’s pace, none put off while the receiver answers', async () => {
    // An hour's delay: a post put off instead of waiting its turn would fail the test.
    bench = await startInboundEnv(kind, {}, { busyDelayMs: 3_600_000 });
    await bench.route(`*@${bench.domain}`, 'webhook');
    const to = Array.from({ length: BURST }, (_, n) => `r${n}@${bench!.domain}`);
    await bench.submit({ to, subject: 'burst', text: 'x' });
    await vi.waitFor(() => expect(bench!.hook.received.length).toBe(BURST), { timeout: 20_000, interval: 20 });
    const recipients = bench.hook.received.map((post) => (post.json.envelope as { rcptTo: string }).rcptTo);
    expect(recipients.sort()).toEqual([...to].sort());
    await vi.waitFor(
      async () => expect((await bench!.messages()).map((m) => m.status)).toEqual(Array(BURST).fill('posted')),
      { timeout: 15_000 },
    );
  });

  it('logs each post of a message, newest first, with the status, error and the retry due', async () => {
    bench = await startInboundEnv(kind);
    const route = await bench.route(`support@${bench.domain}`, 'webhook');
    bench.hook.answer(500);
    await bench.submit({ to: `support@${bench.domain}`, subject: 'log me', text: 'x' });
    await vi.waitFor(() => expect(bench!.hook.received).toHaveLength(1), { timeout: 15_000, interval: 20 });
    const [message] = await bench.messages();
    await vi.waitFor(async () => expect((await attempts(message!.id)).body).toHaveLength(1), { timeout: 15_000 });
    const first = (await attempts(message!.id)).body[0];
    expect(first).toEqual({
      id: expect.any(Number),
      messageId: message!.id,
      routeId: route.id,
      url: bench.hook.url,
      attempt: 1,
      result: 'will-retry',
      status: 500,
      error: 'HTTP 500',
      durationMs: expect.any(Number),
      created: expect.any(Number),
      nextRetryAt: expect.any(Number),
    });
    // The retry is due a minute after the attempt (ns read back through a double: within a millisecond).
    expect(Math.abs(first.nextRetryAt - first.created - 60e9)).toBeLessThan(1e6);

    bench.env.advance(60_000);
    await vi.waitFor(async () => expect((await attempts(message!.id)).body).toHaveLength(2), { timeout: 15_000 });
    const log = (await attempts(message!.id)).body;
    expect(
      log.map((a: { attempt: number; result: string; status: number }) => [a.attempt, a.result, a.status]),
    ).toEqual([
      [2, 'delivered', 200],
      [1, 'will-retry', 500],
    ]);
    expect(log[0]).toMatchObject({ error: null, nextRetryAt: null });
    expect(
      (await attempts(message!.id, { limit: 1, offset: 1 })).body.map((a: { attempt: number }) => a.attempt),
    ).toEqual([1]);

    // Another sub-account's message, or none, is a 406 as the message itself is.
    const unknown = await attempts('0190f3a2-0000-7000-8000-000000000000');
    expect(unknown.status).toBe(406);
    expect(unknown.body.code).toBe('INBOUND_MESSAGE_NOT_FOUND');
    expect((await attempts(message!.id, { limit: 0 })).status).toBe(422);
  });
});
