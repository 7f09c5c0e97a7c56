/**
 * Webhooks on the Standard Webhooks scheme, end to end on SQLite and PostgreSQL: real sends,
 * deliveries to a real HTTP receiver verified with the scheme's own `standardwebhooks` library,
 * secret rotation (both secrets sign for 24 hours), replay of stored events (batched jobs, rate
 * limits, range checks) and the auto-disable after 5 days without a success.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { Webhook } from 'standardwebhooks';
import { verifyWebhookSignature } from 'mailplane';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../support/webhook-receiver.js';
import type { WebhookDeliveryConfig } from '../../src/webhook/config.js';
import type { WebhookRecord } from '../../src/store/index.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe.each(storeKinds)('Standard Webhooks (%s)', (kind) => {
  let env: DeliveryEnv;
  let receiver: WebhookReceiver;
  const warnings: Array<{ message: string; fields: Record<string, unknown> }> = [];
  afterEach(async () => {
    vi.useRealTimers();
    warnings.length = 0;
    await env?.close();
    await receiver?.close();
  });

  async function start(webhooks: Partial<WebhookDeliveryConfig> = {}) {
    receiver = await startWebhookReceiver();
    const logger = {
      info: () => {},
      error: () => {},
      warn: (message: string, fields: Record<string, unknown> = {}) => void warnings.push({ message, fields }),
    };
    env = await startDeliveryEnv(
      kind,
      {},
      { logger, webhooks: { allowPrivateTargets: true, timeoutMs: 1000, ...webhooks } },
    );
  }

  const call = (method: string, path: string, body?: unknown) =>
    env.api.call(method, path, { account: env.api.accountKey, ...(body !== undefined && { body }) });

  async function register(switches: Record<string, boolean>): Promise<{ id: number; secret: string }> {
    const created = await call('POST', '/account/webhook', { url: receiver.url, ...switches });
    expect(created.status).toBe(200);
    return created.body;
  }

  /** Waits until the stored webhook satisfies `check` (state the API does not show: the replay claim, the failure streak). */
  const waitForStored = (id: number, check: (webhook: WebhookRecord) => void) =>
    vi.waitFor(
      async () => {
        const { store } = contextOf(env.api.mailplane);
        const account = await store.accounts.first();
        check((await store.webhooks.get(account!.id, id))!);
      },
      { timeout: 10_000, interval: 20 },
    );
  /** Waits until no replay holds the webhook (the last batch has released it). */
  const waitForReplayEnd = (id: number) => waitForStored(id, (webhook) => expect(webhook.replayId).toBeNull());
  /** Waits until the attempt just received is recorded (the streak is written after the answer). */
  const waitForStreak = (id: number, failingSinceMs: number | null) =>
    waitForStored(id, (webhook) =>
      expect(webhook.failingSince).toBe(failingSinceMs === null ? null : BigInt(failingSinceMs) * 1_000_000n),
    );

  const waitForDeliveries = (count: number) =>
    vi.waitFor(() => expect(receiver.received.length).toBeGreaterThanOrEqual(count), { timeout: 10_000, interval: 20 });

  /** The standardwebhooks library's verdict, at the test clock's time (it checks the timestamp against Date.now()). */
  function verifies(secret: string, delivery: ReceivedDelivery): boolean {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(env.clock.now());
    try {
      new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);
      return true;
    } catch {
      return false;
    } finally {
      vi.useRealTimers();
    }
  }

  async function sendDelivered(local: string): Promise<string> {
    const [entry] = await env.send([`${local}@${RCPT_DOMAIN}`]);
    await env.waitForStatus(entry!.messageId, 'delivered');
    return entry!.messageId;
  }

  it('signs every delivery for the standardwebhooks library, with one webhook-id across the retries of an event', async () => {
    await start();
    const { secret } = await register({ delivered: true });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    receiver.answer(500);
    await sendDelivered('ada');
    await waitForDeliveries(1);
    await vi.waitFor(
      async () => expect((await contextOf(env.api.mailplane).store.jobs.countByState('webhook-retry')).pending).toBe(1),
      { timeout: 10_000, interval: 20 },
    );
    env.advance(MINUTE);
    await waitForDeliveries(2);
    const [first, retry] = receiver.received as [ReceivedDelivery, ReceivedDelivery];
    for (const delivery of [first, retry]) {
      expect(delivery.headers['webhook-id']).toBe(first.json.event.eventID);
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(verifies(secret, delivery)).toBe(true);
      expect(verifies('whsec_' + 'A'.repeat(32), delivery)).toBe(false);
      // The deprecated header still verifies for receivers written before the scheme.
      const legacy = verifyWebhookSignature(
        secret,
        delivery.headers['x-mailplane-signature'] as string,
        delivery.body,
        300,
        Math.floor(env.clock.now() / 1000),
      );
      expect(legacy.ok).toBe(true);
    }
    expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(Number(retry.headers['webhook-timestamp'])).toBe(Number(first.headers['webhook-timestamp']) + 60);
    // A tampered body does not verify.
    expect(verifies(secret, { ...first, body: first.body.replace('"type":2', '"type":3') })).toBe(false);
  });

  it('rotates the secret: both sign for 24 hours, then only the new one', async () => {
    await start();
    const { id, secret: old } = await register({ delivered: true });
    const rotated = await call('POST', `/account/webhook/${id}/secret/rotate`);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(old);
    expect(BigInt(rotated.text.match(/"previousSecretExpiresAt":(\d+)/)![1]!)).toBe(
      BigInt(env.clock.now() + DAY) * 1_000_000n,
    );
    expect((await call('GET', `/account/webhook/${id}`)).body.secret).toBeUndefined();

    await sendDelivered('bob');
    await waitForDeliveries(1);
    const during = receiver.received[0]!;
    expect((during.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    expect(verifies(fresh, during)).toBe(true);
    expect(verifies(old, during)).toBe(true);
    const now = Math.floor(env.clock.now() / 1000);
    expect(
      verifyWebhookSignature(old, during.headers['x-mailplane-signature'] as string, during.body, 300, now).ok,
    ).toBe(true);
    expect(
      verifyWebhookSignature(fresh, during.headers['x-mailplane-signature'] as string, during.body, 300, now).ok,
    ).toBe(true);

    env.advance(DAY + MINUTE);
    await sendDelivered('cy');
    await waitForDeliveries(2);
    const after = receiver.received[1]!;
    expect((after.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
    expect(verifies(fresh, after)).toBe(true);
    expect(verifies(old, after)).toBe(false);
  });

  it('keeps both secrets signing when two rotations come at once (the later current, the earlier previous)', async () => {
    await start();
    const { id, secret: original } = await register({ delivered: true });
    const rotations = await Promise.all([1, 2].map(() => call('POST', `/account/webhook/${id}/secret/rotate`)));
    expect(rotations.map((r) => r.status)).toEqual([200, 200]);
    const secrets = rotations.map((r) => r.body.secret as string);
    expect(new Set(secrets).size).toBe(2);
    await sendDelivered('dee');
    await waitForDeliveries(1);
    const delivery = receiver.received[0]!;
    // Each caller was shown a secret, and each one verifies; the one before both no longer signs.
    expect(secrets.map((secret) => verifies(secret, delivery))).toEqual([true, true]);
    expect(verifies(original, delivery)).toBe(false);
  });

  it('replays the stored events of a range in batches, marked as replays, once at a time and 2 an hour', async () => {
    await start({ replayBatchSize: 2, replaysPerHour: 2 });
    const { id, secret } = await register({ processed: true, delivered: true });
    const from = new Date(env.clock.now() - MINUTE).toISOString();
    for (const local of ['r1', 'r2', 'r3']) await sendDelivered(local);
    await waitForDeliveries(6);
    const originals = new Map(receiver.received.map((d) => [d.json.event.eventID as string, d]));
    expect(originals.size).toBe(6);
    receiver.received.length = 0;
    // Each attempt is logged after its answer: on a loaded machine the last one may not be yet, and
    // would then sort above the replay's (one instant on the test clock; the newest row first).
    await vi.waitFor(async () => expect((await call('GET', `/account/webhook/${id}/delivery`)).body).toHaveLength(6), {
      timeout: 10_000,
      interval: 20,
    });

    const to = new Date(env.clock.now() + MINUTE).toISOString();
    const replay = await call('POST', `/account/webhook/${id}/replay`, { from, to, eventTypes: [2] });
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ webhookId: id, eventTypes: [2], status: 'queued' });
    // The claim is taken when the replay is accepted: a second one is refused while it runs.
    const second = await call('POST', `/account/webhook/${id}/replay`, { from, to });
    expect(second.status).toBe(429);
    expect(second.body.code).toBe('REPLAY_IN_PROGRESS');

    await waitForDeliveries(3);
    await waitForReplayEnd(id);
    expect(receiver.received).toHaveLength(3);
    for (const delivery of receiver.received) {
      expect(delivery.json.event.type).toBe(2);
      expect(delivery.json.replay).toEqual({ id: replay.body.id, requestedAt: expect.any(Number) });
      expect(delivery.headers['x-mailplane-replay']).toBe(replay.body.id);
      const original = originals.get(delivery.json.event.eventID)!;
      // The same webhook-id as the first delivery: receivers that deduplicate skip what they had.
      expect(delivery.headers['webhook-id']).toBe(original.headers['webhook-id']);
      expect(verifies(secret, delivery)).toBe(true);
    }
    // The delivery log has the replay's three attempts, marked with its id, above the six first tries.
    const log = (await call('GET', `/account/webhook/${id}/delivery`)).body as Array<{
      replayId: string | null;
      result: string;
      attempt: number;
    }>;
    expect(log.map((d) => d.replayId)).toEqual([
      ...Array<string>(3).fill(replay.body.id),
      ...Array<null>(6).fill(null),
    ]);
    expect(new Set(log.map((d) => `${d.attempt} ${d.result}`))).toEqual(new Set(['1 delivered']));

    // Second of the hour: allowed; third: refused. Bad ranges are 422 with their own codes.
    expect((await call('POST', `/account/webhook/${id}/replay`, { from, to, eventTypes: [0] })).status).toBe(202);
    await waitForReplayEnd(id);
    const third = await call('POST', `/account/webhook/${id}/replay`, { from, to });
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('REPLAY_RATE_LIMITED');
    expect(third.headers['retry-after']).toMatch(/^\d+$/);
    const inverted = await call('POST', `/account/webhook/${id}/replay`, { from: to, to: from });
    expect([inverted.status, inverted.body.code]).toEqual([422, 'REPLAY_RANGE_INVERTED']);
    const long = await call('POST', `/account/webhook/${id}/replay`, {
      from: String(BigInt(env.clock.now() - 31 * DAY) * 1_000_000n),
      to,
    });
    expect([long.status, long.body.code]).toEqual([422, 'REPLAY_RANGE_TOO_LONG']);
    expect((await call('POST', `/account/webhook/${id}/replay`, { from: 'yesterday', to })).status).toBe(422);
    expect((await call('POST', `/account/webhook/${id + 1000}/replay`, { from, to })).status).toBe(406);
  });

  it('disables a webhook that failed without a success for 5 days, with the reason on the resource and in the log; enabling clears it', async () => {
    await start({ retryDelaysMs: [] });
    const { id } = await register({ delivered: true });
    receiver.answer(500, 200, 500, 500, 500);
    const t0 = env.clock.now();
    await sendDelivered('d1');
    await waitForDeliveries(1);
    await waitForStreak(id, t0);
    // A success on day 3 ends the streak: day 6 is one day into a new one.
    env.advance(3 * DAY);
    await sendDelivered('d2');
    await waitForDeliveries(2);
    await waitForStreak(id, null);
    env.advance(3 * DAY);
    await sendDelivered('d3');
    await waitForDeliveries(3);
    await waitForStreak(id, t0 + 6 * DAY);
    expect((await call('GET', `/account/webhook/${id}`)).body).toMatchObject({ enabled: true, disabledReason: null });
    env.advance(5 * DAY);
    await sendDelivered('d4');
    await waitForDeliveries(4);
    const disabled = await vi.waitFor(
      async () => {
        const got = await call('GET', `/account/webhook/${id}`);
        expect(got.body.enabled).toBe(false);
        return got;
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(disabled.body.disabledReason).toMatch(/failed for 5 days .* without a success; last error: HTTP 500/);
    expect(BigInt(disabled.text.match(/"disabledAt":(\d+)/)![1]!)).toBe(BigInt(env.clock.now()) * 1_000_000n);
    // Logged once the store has answered the sender, which may be after this read saw the commit.
    await vi.waitFor(
      () =>
        expect(warnings).toContainEqual({
          message: 'webhook: disabled after failing without a success',
          fields: expect.objectContaining({ webhookId: id, disabledReason: disabled.body.disabledReason }),
        }),
      { timeout: 10_000, interval: 20 },
    );
    // Disabled: nothing more is posted, and a replay is refused until it is enabled again.
    await sendDelivered('d5');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(4);
    const refused = await call('POST', `/account/webhook/${id}/replay`, {
      from: new Date(env.clock.now() - DAY).toISOString(),
      to: new Date(env.clock.now()).toISOString(),
    });
    expect([refused.status, refused.body.code]).toEqual([422, 'WEBHOOK_DISABLED']);

    const enabled = await call('PUT', `/account/webhook/${id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });
    await sendDelivered('d6');
    await waitForDeliveries(5);
  });
});
