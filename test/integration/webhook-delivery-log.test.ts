/**
 * The webhook delivery log (docs/webhooks.md, "Delivery log"): a real receiver on loopback answers
 * 500 then 200, and `GET /account/webhook/{id}/delivery` shows the failed first attempt as
 * will-retry with its next retry time, then the retry as delivered; another account's webhook is
 * 406; the retention job purges old rows.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { purgeWebhookDeliveries } from '../../src/retention/jobs.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe.each(storeKinds)('webhook delivery log (%s)', (kind) => {
  let env: DeliveryEnv;
  let receiver: WebhookReceiver;
  afterEach(async () => {
    await env?.close();
    await receiver?.close();
  });

  it('shows a failed attempt as will-retry with its next retry, then the retry as delivered, newest first', async () => {
    receiver = await startWebhookReceiver();
    env = await startDeliveryEnv(kind, {}, { webhooks: { allowPrivateTargets: true, timeoutMs: 2000 } });
    const account = env.api.accountKey;
    const created = await env.api.call('POST', '/account/webhook', {
      account,
      body: { url: receiver.url, delivered: true },
    });
    expect(created.status).toBe(200);
    const id = created.body.id as number;
    const log = async (query: Record<string, string> = {}) => {
      const answer = await env.api.call('GET', `/account/webhook/${id}/delivery`, { account, query });
      expect(answer.status).toBe(200);
      return answer.body as Array<Record<string, unknown>>;
    };
    expect(await log()).toEqual([]);

    receiver.answer(500);
    const [entry] = await env.send([`log@${RCPT_DOMAIN}`]);
    await env.waitForStatus(entry!.messageId, 'delivered');
    await vi.waitFor(async () => expect(await log()).toHaveLength(1), { timeout: 10_000, interval: 50 });
    const [failed] = await log();
    const eventId = receiver.received[0]!.json.event.eventID as string;
    expect(failed).toMatchObject({
      webhookId: id,
      eventId,
      replayId: null,
      attempt: 1,
      result: 'will-retry',
      status: 500,
      error: 'HTTP 500',
    });
    // The first retry is due a minute after the attempt (the manual clock does not move by itself;
    // ns read back through a double, so within a millisecond).
    expect(Math.abs(Number(failed!.nextRetryAt) - Number(failed!.created) - 60e9)).toBeLessThan(1e6);
    expect(failed!.durationMs).toBeGreaterThanOrEqual(0);

    env.advance(MINUTE);
    await vi.waitFor(async () => expect(await log()).toHaveLength(2), { timeout: 10_000, interval: 50 });
    const [delivered, first] = await log();
    expect(delivered).toMatchObject({
      eventId,
      attempt: 2,
      result: 'delivered',
      status: 200,
      error: null,
      nextRetryAt: null,
    });
    expect(first).toEqual(failed);
    expect(receiver.received).toHaveLength(2);

    // Paged newest first; a limit above 100 is clamped, not refused.
    expect((await log({ limit: '1', offset: '1' })).map((d) => d.attempt)).toEqual([1]);
    expect(await log({ limit: '500' })).toHaveLength(2);
    expect(
      (await env.api.call('GET', `/account/webhook/${id}/delivery`, { account, query: { limit: '0' } })).status,
    ).toBe(422);

    // Another account cannot read it: the webhook is unknown to it, as on every webhook route.
    const other = await env.api.mailplane.createAccount({ name: 'other tenant' });
    const foreign = await env.api.call('GET', `/account/webhook/${id}/delivery`, { account: other.apiKey });
    expect(foreign.status).toBe(406);

    // Kept as long as events (retention.days, 30 by default), then purged by the retention job.
    const ctx = contextOf(env.api.mailplane);
    expect(await purgeWebhookDeliveries(ctx)).toEqual({ deleted: 0, more: false });
    env.clock.set(env.clock.now() + 31 * DAY);
    expect(await purgeWebhookDeliveries(ctx)).toEqual({ deleted: 2, more: false });
    expect(await log()).toEqual([]);
  });

  it('shows the last retry of the schedule as gave-up, with no next retry', async () => {
    receiver = await startWebhookReceiver();
    env = await startDeliveryEnv(
      kind,
      {},
      { webhooks: { allowPrivateTargets: true, timeoutMs: 2000, retryDelaysMs: [MINUTE] } },
    );
    const account = env.api.accountKey;
    const id = (
      await env.api.call('POST', '/account/webhook', { account, body: { url: receiver.url, delivered: true } })
    ).body.id as number;
    const log = async () =>
      (await env.api.call('GET', `/account/webhook/${id}/delivery`, { account })).body as Array<
        Record<string, unknown>
      >;
    receiver.answer(500, 503);
    const [entry] = await env.send([`gone@${RCPT_DOMAIN}`]);
    await env.waitForStatus(entry!.messageId, 'delivered');
    await vi.waitFor(async () => expect(await log()).toHaveLength(1), { timeout: 10_000, interval: 50 });
    env.advance(MINUTE);
    await vi.waitFor(async () => expect(await log()).toHaveLength(2), { timeout: 10_000, interval: 50 });
    expect((await log()).map((d) => [d.attempt, d.result, d.status, d.error, d.nextRetryAt === null])).toEqual([
      [2, 'gave-up', 503, 'HTTP 503', true],
      [1, 'will-retry', 500, 'HTTP 500', false],
    ]);
  });
});
