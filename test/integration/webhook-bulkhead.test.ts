/**
 * Slow webhook receivers do not delay another webhook's events, of another account or of their own
 * (docs/security.md, "Webhooks"): real receivers on loopback that never answer or drip their
 * answer, the default deadlines, and the caps per webhook and per account on POSTs under way; posts
 * over a cap are put off as jobs, without counting an attempt, and posted later.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { WEBHOOK_EVENTS_JOB, WEBHOOK_RETRY_JOB } from '../../src/jobs/kinds.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { sendBody } from '../support/sending.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const MINUTE = 60_000;

describe.each(storeKinds)('webhook POSTs per webhook and account (%s)', (kind) => {
  let env: DeliveryEnv;
  const receivers: WebhookReceiver[] = [];
  afterEach(async () => {
    // Receivers first: their stalled requests end, so the jobs posting to them stop at once.
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
    await env?.close();
  });

  const receiver = async (answer: 'stall' | 'drip' | 200) => {
    const started = await startWebhookReceiver();
    started.always(answer);
    receivers.push(started);
    return started;
  };
  const register = async (account: string, url: string, switches: Record<string, boolean>) => {
    const created = await env.api.call('POST', '/account/webhook', { account, body: { url, ...switches } });
    expect(created.status).toBe(200);
    return created.body.id as number;
  };
  const pendingEvents = async () =>
    (await contextOf(env.api.mailplane).store.jobs.queueStats(env.clock.now())).find(
      (line) => line.kind === WEBHOOK_EVENTS_JOB,
    );

  it("delivers another account's event at once while one account's receivers hang and drip", async () => {
    // The default deadlines and cap: a POST may wait 10 s for its headers.
    env = await startDeliveryEnv(kind, {}, { webhooks: { allowPrivateTargets: true } });
    const [stalling, dripping, healthy] = [await receiver('stall'), await receiver('drip'), await receiver(200)];
    await register(env.api.accountKey, stalling.url, { processed: true, delivered: true });
    await register(env.api.accountKey, dripping.url, { processed: true, delivered: true });

    const other = await env.api.mailplane.createAccount({ name: 'other tenant' });
    await register(other.apiKey, healthy.url, { processed: true });
    const sub = (await env.api.call('POST', '/account/subaccount', { account: other.apiKey, body: { name: 'other' } }))
      .body;
    const domain = (await env.api.call('POST', '/subaccount/domain', { sub: sub.apiKey, body: { name: 'other.test' } }))
      .body;
    await contextOf(env.api.mailplane).store.domains.updateVerification(sub.id, domain.id, {
      dkimVerified: true,
      verified: true,
      updated: 1n,
    });

    for (let i = 0; i < 30; i++) await env.send([`a${i}@${RCPT_DOMAIN}`]);
    await vi.waitFor(() => expect(stalling.received.length).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });
    const sent = await env.api.call('POST', '/subaccount/email', {
      sub: sub.apiKey,
      body: sendBody('news@other.test', [`b@${RCPT_DOMAIN}`]),
    });
    expect(sent.status).toBe(200);
    const accepted = performance.now();
    await vi.waitFor(() => expect(healthy.received).toHaveLength(1), { timeout: 15_000, interval: 10 });
    // Well under the 10 s a hanging POST may take; without the cap it waited for those.
    expect(performance.now() - accepted).toBeLessThan(2000);
    expect(healthy.received[0]!.json.event).toMatchObject({ type: 0, messageID: sent.body[0].messageId });
    // The hanging receiver holds at most its cap (2) of POSTs; the rest of its events wait in jobs, not lost.
    expect(stalling.connections().open).toBeGreaterThan(0);
    expect(stalling.connections().open).toBeLessThanOrEqual(2);
    expect((await pendingEvents())?.pending).toBeGreaterThan(0);
    // A dripping 200 is a delivery, decided by its headers.
    expect(dripping.received.length).toBeGreaterThan(0);
  });

  it("delivers an event to an account's healthy webhook at once while another webhook of the same account hangs", async () => {
    env = await startDeliveryEnv(kind, {}, { webhooks: { allowPrivateTargets: true } });
    const [stalling, healthy] = [await receiver('stall'), await receiver(200)];
    await register(env.api.accountKey, stalling.url, { processed: true });
    for (let i = 0; i < 30; i++) await env.send([`a${i}@${RCPT_DOMAIN}`]);
    await vi.waitFor(() => expect(stalling.received.length).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });
    await register(env.api.accountKey, healthy.url, { processed: true });
    const [entry] = await env.send([`late@${RCPT_DOMAIN}`]);
    const accepted = performance.now();
    await vi.waitFor(
      () => expect(healthy.received.some((d) => d.json.event.messageID === entry!.messageId)).toBe(true),
      { timeout: 15_000, interval: 10 },
    );
    // Well under the 10 s a hanging POST may take; with the account's cap alone it waited for those.
    expect(performance.now() - accepted).toBeLessThan(2000);
    expect(stalling.connections().open).toBeLessThanOrEqual(2);
  });

  it('puts off the posts of a webhook at its cap without counting an attempt, and posts them later', async () => {
    env = await startDeliveryEnv(kind, {}, { webhooks: { allowPrivateTargets: true, maxConcurrentPerWebhook: 1 } });
    const hook = await receiver(200);
    const id = await register(env.api.accountKey, hook.url, { processed: true });
    const log = async () =>
      (await env.api.call('GET', `/account/webhook/${id}/delivery`, { account: env.api.accountKey })).body as Array<
        Record<string, unknown>
      >;
    const jobs = contextOf(env.api.mailplane).store.jobs;
    /** No webhook job running or due. */
    const settled = () =>
      vi.waitFor(
        async () => {
          for (const jobKind of [WEBHOOK_EVENTS_JOB, WEBHOOK_RETRY_JOB])
            expect((await jobs.countByState(jobKind)).running).toBe(0);
          const due = (await jobs.queueStats(env.clock.now())).filter(
            (line) => line.oldestDueAt !== null && line.kind.startsWith('webhook-'),
          );
          expect(due).toEqual([]);
        },
        { timeout: 10_000, interval: 20 },
      );
    const retries = async () =>
      (await contextOf(env.api.mailplane).store.jobs.queueStats(env.clock.now())).find(
        (line) => line.kind === WEBHOOK_RETRY_JOB,
      );

    // The first event fails (a retry a minute later); the second hangs, holding the account's one slot.
    hook.answer(500, 'stall');
    await env.send([`one@${RCPT_DOMAIN}`]);
    await vi.waitFor(async () => expect((await retries())?.pending).toBe(1), { timeout: 10_000, interval: 20 });
    await env.send([`two@${RCPT_DOMAIN}`]);
    await vi.waitFor(() => expect(hook.received).toHaveLength(2), { timeout: 10_000, interval: 20 });
    // The third finds the account busy: its event goes into a job due later, not posted now.
    await env.send([`three@${RCPT_DOMAIN}`]);
    await vi.waitFor(async () => expect(await pendingEvents()).toMatchObject({ pending: 1, oldestDueAt: null }), {
      timeout: 10_000,
      interval: 20,
    });
    // The retry comes due while the account is still busy: it is put off as well.
    env.advance(MINUTE);
    await vi.waitFor(async () => expect(await retries()).toMatchObject({ pending: 1, oldestDueAt: null }), {
      timeout: 10_000,
      interval: 20,
    });
    expect(hook.received).toHaveLength(2);

    // The hanging POST fails; the account has its slot back and what was put off goes out.
    hook.dropConnections();
    await vi.waitFor(() => expect(log()).resolves.toHaveLength(2), { timeout: 10_000, interval: 20 });
    // With a cap of 1 the two put off may find each other busy: each round moves the clock 5 s on
    // (the second event's retry is due a minute after its failure, beyond these rounds).
    for (let round = 0; round < 5 && hook.received.length < 4; round++) {
      env.advance(5_000);
      await settled();
    }
    expect(hook.received).toHaveLength(4);
    const [first, second, third] = ['one', 'two', 'three'].map(
      (name) => hook.received.find((d) => d.json.event.to === `${name}@${RCPT_DOMAIN}`)!.json.event.eventID as string,
    );
    const rows = async (eventId: string) =>
      (await log()).filter((row) => row.eventId === eventId).map((row) => [row.attempt, row.result]);
    await vi.waitFor(async () => expect(await log()).toHaveLength(4), { timeout: 10_000, interval: 20 });
    // Put off twice, the retry is still attempt 2; the event put off is still a first attempt.
    expect(await rows(first!)).toEqual([
      [2, 'delivered'],
      [1, 'will-retry'],
    ]);
    expect(await rows(second!)).toEqual([[1, 'will-retry']]);
    expect(await rows(third!)).toEqual([[1, 'delivered']]);
  });
});
