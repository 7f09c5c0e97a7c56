/**
 * Incident notifications end to end on SQLite and PostgreSQL (docs/reputation.md, "Notifications"):
 * an incident opened through the store as the evaluation opens it, `notifyIncident` in the same
 * transaction, and the job runner carrying each channel out to real receivers on loopback: a signed
 * webhook verified with the `standardwebhooks` library, a Slack-compatible POST retried on 5xx and
 * not on 4xx, and an email through mailplane's own send path to a real SMTP sink.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { contextOf } from '../../src/instance-context.js';
import { notifyIncident, type IncidentChange } from '../../src/alerts/notify.js';
import type { IncidentRecord } from '../../src/store/index.js';
import { storeKinds } from '../support/databases.js';
import { startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../support/webhook-receiver.js';

const MINUTE = 60_000;
const SUMMARY = 'hard-bounce rate 20.5 % of 1000 crossed 10 % over 1 hour';
const WAIT = { timeout: 15_000, interval: 20 };

describe.each(storeKinds)('incident notifications (%s)', (kind) => {
  let env: DeliveryEnv;
  let hooks: WebhookReceiver;
  let slack: WebhookReceiver;
  const warnings: Array<{ message: string; fields: Record<string, unknown> }> = [];
  afterEach(async () => {
    vi.useRealTimers();
    await env?.close();
    await hooks?.close();
    await slack?.close();
    warnings.length = 0;
  });

  async function start(alertsFrom?: string) {
    hooks = await startWebhookReceiver();
    slack = await startWebhookReceiver();
    const logger = {
      info: () => {},
      error: () => {},
      warn: (message: string, fields: Record<string, unknown> = {}) => void warnings.push({ message, fields }),
    };
    env = await startDeliveryEnv(
      kind,
      {},
      {
        logger,
        webhooks: { allowPrivateTargets: true, timeoutMs: 2000 },
        ...(alertsFrom !== undefined && { alerts: { from: alertsFrom } }),
      },
    );
  }

  const ctx = () => contextOf(env.api.mailplane);
  /** The warnings of the notifications (the instance's other jobs may warn too). */
  const notifyWarnings = () => warnings.filter((w) => w.message.startsWith('incident notification'));
  const call = (method: string, path: string, body?: unknown) =>
    env.api.call(method, path, { account: env.api.accountKey, ...(body !== undefined && { body }) });

  async function registerWebhook(): Promise<{ id: number; secret: string }> {
    const created = await call('POST', '/account/webhook', { url: hooks.url, incident: true });
    expect(created.status).toBe(200);
    return created.body;
  }

  /** Opens an incident and queues its notifications in one transaction, as the evaluation does. */
  async function openAndNotify(emails: string[]): Promise<IncidentRecord> {
    const { store } = ctx();
    const incident = await store.transaction(async (tx) => {
      const opened = await tx.incidents.open({
        accountId: env.sender.subAccount.accountId,
        topic: 'alert:1',
        alertId: null,
        entityType: 'subAccount',
        entityId: env.sender.subAccount.id,
        parameter: 0,
        provider: null,
        threshold: 10,
        windowHours: 1,
        measuredValue: 20.5,
        sampleSize: 1000,
        summary: SUMMARY,
        started: BigInt(env.clock.now()) * 1_000_000n,
      });
      await notifyIncident(ctx(), tx, {
        incident: opened.incident,
        change: 'opened' satisfies IncidentChange,
        emails,
        slackUrl: slack.url,
      });
      return opened.incident;
    });
    ctx().jobs.notify();
    return incident;
  }

  /** The standardwebhooks library's verdict at the test clock's time (it checks the timestamp against Date.now()). */
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

  it('posts a signed webhook and a Slack message, and emails each address through the accept path', async () => {
    await start(`alerts@${'sender.test'}`);
    const { id: webhookId, secret } = await registerWebhook();
    const incident = await openAndNotify(['ops@rcpt.test', 'oncall@rcpt.test']);

    await vi.waitFor(() => expect(hooks.received).toHaveLength(1), WAIT);
    const [delivery] = hooks.received as [ReceivedDelivery];
    expect(verifies(secret, delivery)).toBe(true);
    expect(verifies('whsec_' + 'A'.repeat(32), delivery)).toBe(false);
    expect(delivery.headers['webhook-id']).toBe(`incident_${incident.id}_opened`);
    const shown = await call('GET', `/account/incident/${incident.id}`);
    expect(delivery.json).toEqual({ type: 'incident.opened', incident: JSON.parse(shown.text) });

    await vi.waitFor(() => expect(slack.received).toHaveLength(1), WAIT);
    const [posted] = slack.received as [ReceivedDelivery];
    expect(posted.headers['content-type']).toBe('application/json');
    expect(posted.headers['webhook-signature']).toBeUndefined();
    expect(posted.json.text).toBe(`[mailplane] Incident opened: ${SUMMARY}`);
    expect(JSON.stringify(posted.json.blocks)).toContain('sub-account');

    await vi.waitFor(() => expect(env.sink.received).toHaveLength(2), WAIT);
    expect(env.sink.received.flatMap((message) => message.rcptTo).sort()).toEqual([
      'oncall@rcpt.test',
      'ops@rcpt.test',
    ]);
    for (const message of env.sink.received) {
      const raw = message.raw.toString('utf8');
      expect(raw).toMatch(new RegExp(`^Subject: \\[mailplane\\] Incident opened: hard-bounce rate`, 'm'));
      expect(raw).toMatch(/^From: .*alerts@sender\.test/m);
      expect((await env.verifyDkim(message.raw)).status).toBe('pass');
    }
    // In the sending sub-account's activity, like any other send.
    const messages = await env.api.call('GET', '/subaccount/message', { sub: env.key });
    expect(JSON.stringify(messages.body)).toContain('Incident opened');

    // In the webhook's delivery log, as event deliveries are.
    await vi.waitFor(async () => {
      const log = await call('GET', `/account/webhook/${webhookId}/delivery`);
      expect(log.body.map((entry: { eventId: string; result: string }) => [entry.eventId, entry.result])).toEqual([
        [`incident_${incident.id}_opened`, 'delivered'],
      ]);
    }, WAIT);
    expect(notifyWarnings()).toEqual([]);
  });

  it('retries the Slack POST on 5xx (500, 500, then 200: three posts) and gives up on a 4xx after one', async () => {
    await start();
    slack.answer(500, 500);
    await openAndNotify([]);
    await vi.waitFor(() => {
      // Each retry waits for the next delay of the schedule (1 then 5 minutes) on the test's clock.
      env.advance(5 * MINUTE);
      expect(slack.received.length).toBeGreaterThanOrEqual(3);
    }, WAIT);
    await vi.waitFor(async () => expect((await ctx().store.jobs.countByState('incident-slack')).pending).toBe(0), WAIT);
    env.advance(60 * MINUTE);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(slack.received).toHaveLength(3);
    expect(new Set(slack.received.map((post) => post.body)).size).toBe(1);

    slack.received.length = 0;
    slack.answer(404);
    const { store } = ctx();
    const second = await store.transaction(async (tx) => {
      const { incident } = await tx.incidents.open({
        accountId: env.sender.subAccount.accountId,
        topic: 'alert:2',
        alertId: null,
        entityType: 'account',
        entityId: env.sender.subAccount.accountId,
        parameter: 7,
        provider: null,
        threshold: 100,
        windowHours: 24,
        measuredValue: 150,
        sampleSize: 150,
        summary: 'volume 150 crossed 100 over 24 hours',
        started: BigInt(env.clock.now()) * 1_000_000n,
      });
      await notifyIncident(ctx(), tx, { incident, change: 'opened', emails: [], slackUrl: slack.url });
      return incident;
    });
    ctx().jobs.notify();
    await vi.waitFor(
      () =>
        expect(notifyWarnings().map((w) => w.message)).toEqual([
          'incident notification: the Slack URL refused it, not retried',
        ]),
      WAIT,
    );
    env.advance(60 * MINUTE);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(slack.received).toHaveLength(1);
    expect(slack.received[0]!.json.text).toContain('volume 150');
    expect(second.state).toBe('open');
  });

  it('sends no email without alerts.from, says why once, and still posts the webhook', async () => {
    await start();
    const { secret } = await registerWebhook();
    const incident = await openAndNotify(['ops@rcpt.test', 'oncall@rcpt.test']);
    await vi.waitFor(() => expect(hooks.received).toHaveLength(1), WAIT);
    expect(verifies(secret, hooks.received[0]!)).toBe(true);
    expect((await ctx().store.jobs.countByState('incident-email')).pending).toBe(0);
    expect(notifyWarnings()).toEqual([
      {
        message: 'incident notification: no email sent',
        fields: expect.objectContaining({ incidentId: incident.id, reason: expect.stringContaining('alerts.from') }),
      },
    ]);
    await vi.waitFor(() => expect(slack.received).toHaveLength(1), WAIT);
    expect(env.sink.received).toEqual([]);
  });

  it('sends no email when alerts.from is not on a verified domain of the account', async () => {
    await start('alerts@elsewhere.test');
    await openAndNotify(['ops@rcpt.test']);
    await vi.waitFor(() => expect(slack.received).toHaveLength(1), WAIT);
    expect(notifyWarnings()).toEqual([
      {
        message: 'incident notification: no email sent',
        fields: expect.objectContaining({ reason: expect.stringContaining('elsewhere.test') }),
      },
    ]);
    expect(env.sink.received).toEqual([]);
  });
});
