/**
 * The reputation guard's evaluation on both databases: alert rules open incidents on their entity
 * and provider only and resolve after their rate stayed good for their window; the automatic
 * protection warns, blocks a sub-account (whose sends are then refused), says why, is undone by an
 * unblock without blocking again on the same bounces, and follows the account's and the
 * sub-account's settings. The counters are written as delivery writes them (`store.reputation`),
 * on a manual clock, and each run is the evaluation the `reputation` job runs.
 */
import { describe, expect, it } from 'vitest';
import { ReputationEvaluation, type EvaluationRun } from '../../src/alerts/evaluation.js';
import { notifyIncident, type IncidentNotice } from '../../src/alerts/notify.js';
import { contextOf } from '../../src/instance-context.js';
import { manualClock } from '../../src/model/time.js';
import { MailboxProvider } from '../../src/routing/providers.js';
import { hourOfMs, type ReputationCounters } from '../../src/store/index.js';
import { useTestApi, type CreatedSubAccount } from '../support/api.js';
import { storeKinds } from '../support/databases.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the JSON shape
type Json = any;

const HOUR = 3_600_000;
const START = Date.UTC(2026, 10, 2, 9, 30);

describe.each(storeKinds)('reputation evaluation (%s)', (kind) => {
  const clock = manualClock(START);
  const api = useTestApi(kind, () => {
    clock.set(START);
    return { clock };
  });
  const notices: IncidentNotice[] = [];

  /** One evaluation, as the job runs it, recording what it notified. */
  async function evaluate(): Promise<EvaluationRun> {
    const ctx = contextOf(api.mailplane);
    return new ReputationEvaluation({
      store: ctx.store,
      clock,
      logger: ctx.logger,
      protection: ctx.config.reputation.protection,
      notify: async (store, notice) => {
        notices.push(notice);
        await notifyIncident(ctx, store, notice);
      },
    }).evaluate();
  }

  /** Adds counters in the current hour, as accept and delivery add them. */
  async function count(
    sub: CreatedSubAccount,
    counters: Partial<ReputationCounters>,
    at: { ipId?: number; provider?: number } = {},
  ) {
    await contextOf(api.mailplane).store.reputation.increment([
      {
        accountId: sub.accountId,
        subAccountId: sub.id,
        hour: hourOfMs(clock.now()),
        domainId: 0,
        provider: at.provider ?? MailboxProvider.Default,
        ipId: at.ipId ?? 0,
        counters,
      },
    ]);
  }

  const incidents = async (): Promise<Json[]> =>
    (await api.call('GET', '/account/incident', { account: api.accountKey })).body;
  const subAccount = async (id: number): Promise<Json> =>
    (await api.call('GET', `/account/subaccount/${id}`, { account: api.accountKey })).body;

  it('blocks a sub-account at its hard-bounce line, says why, refuses its sends, and is undone by an unblock', async () => {
    notices.length = 0;
    const tenant = await api.createSubAccount('Stale list');
    const bystander = await api.createSubAccount('Clean list');
    await count(tenant, { processed: 200, hardBounced: 40, delivered: 160 });
    await count(bystander, { processed: 200, hardBounced: 2, delivered: 198 });

    expect(await evaluate()).toMatchObject({ opened: 1, blocked: 1 });
    const blocked = await subAccount(tenant.id);
    expect(blocked.blocked).toBe(true);
    expect(blocked.block_reason).toContain('hard-bounce rate 20 % over 24 hours (200 processed)');
    expect((await subAccount(bystander.id)).blocked).toBe(false);
    const [incident] = await incidents();
    expect(incident).toMatchObject({ entityType: 'subAccount', entityValue: String(tenant.id), status: 0 });
    expect(incident.summary).toContain('Sub-account Stale list blocked');
    expect(notices.map((n) => n.change)).toEqual(['opened']);

    const send = await api.call('POST', '/subaccount/email', {
      sub: tenant.apiKey,
      body: { from: { email: 'news@stale.example' }, to: [{ email: 'a@example.com' }], subject: 's', textBody: 't' },
    });
    expect(send.status).toBe(403);
    expect(send.body.code).toBe('SUBACCOUNT_BLOCKED');

    // Evaluated again: the same incident, no second notification.
    expect(await evaluate()).toMatchObject({ opened: 0, blocked: 0 });
    expect(await incidents()).toHaveLength(1);

    // The operator unblocks; the same bounces do not block it again.
    expect(
      (await api.call('PUT', `/account/subaccount/${tenant.id}`, { account: api.accountKey, body: { blocked: false } }))
        .status,
    ).toBe(200);
    clock.advance(5 * 60_000);
    expect(await evaluate()).toMatchObject({ blocked: 0 });
    expect((await subAccount(tenant.id)).blocked).toBe(false);

    // New bounces, in an hour after the unblock, block it again.
    clock.advance(HOUR);
    await count(tenant, { processed: 150, hardBounced: 30 });
    expect(await evaluate()).toMatchObject({ blocked: 1 });
    expect((await subAccount(tenant.id)).blocked).toBe(true);
  });

  it('warns under the block line, and resolves the warning once the rate stayed good for the window', async () => {
    notices.length = 0;
    const tenant = await api.createSubAccount('Warm list');
    await count(tenant, { processed: 200, hardBounced: 12 });
    expect(await evaluate()).toMatchObject({ opened: 1, blocked: 0 });
    const [warning] = await incidents();
    expect(warning.summary).toContain('reached the warning line of 5 %');
    expect((await subAccount(tenant.id)).blocked).toBe(false);

    clock.advance(HOUR);
    await count(tenant, { processed: 2000 });
    await evaluate(); // 0.5 %: good from now on
    clock.advance(23 * HOUR);
    expect(await evaluate()).toMatchObject({ resolved: 0 });
    clock.advance(HOUR + 60_000);
    expect(await evaluate()).toMatchObject({ resolved: 1 });
    const [resolved] = await incidents();
    expect(resolved).toMatchObject({ status: 1 });
    expect(notices.map((n) => n.change)).toEqual(['opened', 'resolved']);
  });

  it('resolves a warning when the sub-account is then blocked, and says so', async () => {
    notices.length = 0;
    const tenant = await api.createSubAccount('Getting worse');
    await count(tenant, { processed: 200, hardBounced: 12 });
    expect(await evaluate()).toMatchObject({ opened: 1, blocked: 0 });
    await count(tenant, { processed: 50, hardBounced: 40 });
    expect(await evaluate()).toMatchObject({ opened: 1, blocked: 1 });
    const [block, warning] = await incidents();
    expect(block).toMatchObject({ topic: `block:${tenant.id}`, status: 0 });
    expect(warning).toMatchObject({ topic: `warn:${tenant.id}:0`, status: 1, resolvedBy: 'mailplane' });
    expect(warning.timeline.at(-1).detail).toBe(`the sub-account was blocked (incident ${block.id})`);
    expect(notices.map((n) => `${n.change} ${n.incident.topic}`)).toEqual([
      `opened warn:${tenant.id}:0`,
      `resolved warn:${tenant.id}:0`,
      `opened block:${tenant.id}`,
    ]);
  });

  it("fires a rule on its IP and provider only, notifies the rule's targets, and resolves after its window", async () => {
    notices.length = 0;
    const tenant = await api.createSubAccount('Sender');
    const ctx = contextOf(api.mailplane);
    const account = tenant.accountId;
    const ipOf = async (address: string) => {
      const outcome = await ctx.store.ips.allocate(account, [
        {
          accountId: account,
          publicIp: address,
          reverseDnsHostname: '',
          type: 1,
          state: 0,
          autoWarmupEnabled: false,
          warmupStartedAt: 0n,
          created: 0n,
        },
      ]);
      if (!outcome.ok) throw new Error('no IP');
      return outcome.value[0]!.id;
    };
    const [watched, other] = [await ipOf('198.51.100.7'), await ipOf('198.51.100.8')];
    const rule = {
      name: 'Gmail bounces on .7',
      entityType: 'ip',
      entityValue: watched,
      parameter: 0,
      threshold: 5,
      provider: String(MailboxProvider.Gmail),
      processedCountThreshold: 50,
      windowHours: 1,
      emails: ['ops@example.com'],
    };
    expect((await api.call('POST', '/account/alert', { account: api.accountKey, body: rule })).status).toBe(200);
    // Bad at Microsoft on the watched IP and at Gmail on another: not the rule's business.
    await count(tenant, { sent: 100, hardBounced: 30 }, { ipId: watched, provider: MailboxProvider.Microsoft });
    await count(tenant, { sent: 100, hardBounced: 30 }, { ipId: other, provider: MailboxProvider.Gmail });
    await count(tenant, { sent: 100, hardBounced: 4 }, { ipId: watched, provider: MailboxProvider.Gmail });
    expect(await evaluate()).toMatchObject({ opened: 0 });

    await count(tenant, { sent: 20, hardBounced: 6 }, { ipId: watched, provider: MailboxProvider.Gmail });
    expect(await evaluate()).toMatchObject({ opened: 1 });
    const [incident] = await incidents();
    expect(incident).toMatchObject({ entityType: 'ip', entityValue: String(watched), status: 0 });
    expect(incident.summary).toContain(
      'Gmail bounces on .7: hard-bounce rate 8.3333 % over 1 hour (120 sent) at Gmail reached 5 %',
    );
    expect(notices[0]).toMatchObject({ change: 'opened', emails: ['ops@example.com'] });

    // The bad hour leaves the window (the current hour and the one before) after two hours.
    clock.advance(HOUR);
    expect(await evaluate()).toMatchObject({ resolved: 0 });
    clock.advance(HOUR);
    expect(await evaluate()).toMatchObject({ resolved: 0 }); // clear from now
    clock.advance(HOUR);
    expect(await evaluate()).toMatchObject({ resolved: 1 });
    expect((await incidents())[0]).toMatchObject({ status: 1 });
  });

  it("follows the account's lines and a sub-account's overrides, and refuses settings that make no sense", async () => {
    const quiet = await api.createSubAccount('Exempt');
    const loose = await api.createSubAccount('Loose');
    const key = { account: api.accountKey };
    expect(
      (await api.call('PUT', `/account/protection/subaccount/${quiet.id}`, { ...key, body: { enabled: false } }))
        .status,
    ).toBe(200);
    const changed = await api.call('PUT', '/account/protection', {
      ...key,
      body: { hardBounceRate: { block: 50, warn: 30, minProcessed: 100 } },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.settings.hardBounceRate).toEqual({ block: 50, warn: 30, minProcessed: 100 });
    expect(changed.body.settings.spamComplaintRate).toEqual({ block: 0.3, warn: 0.1, minProcessed: 1000 });
    expect(changed.body.subAccounts).toEqual([
      expect.objectContaining({ subAccountId: quiet.id, overrides: { enabled: false } }),
    ]);
    await count(quiet, { processed: 200, hardBounced: 150 });
    await count(loose, { processed: 200, hardBounced: 40 });
    expect(await evaluate()).toMatchObject({ opened: 0, blocked: 0 });

    for (const [body, field] of [
      [{ hardBounceRate: { block: 10, warn: 20, minProcessed: 100 } }, 'hardBounceRate.warn'],
      [{ spamComplaintRate: { block: 150, warn: 1, minProcessed: 1000 } }, 'spamComplaintRate.block'],
      [{ hardBounceRate: { block: 10, warn: 5, minProcessed: 1 } }, 'hardBounceRate.minProcessed'],
      [{}, ''],
    ] as const) {
      const refused = await api.call('PUT', '/account/protection', { ...key, body });
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(refused.body.message).toContain(field);
    }
    const slack = await api.call('PUT', '/account/protection', {
      ...key,
      body: { slackUrl: 'http://127.0.0.1:9/hook' },
    });
    expect(slack.status).toBe(422);
    expect(slack.body.code).toBe('PROTECTION_SLACK_URL_REFUSED');
    const otherAccount = await api.mailplane.createAccount({ name: 'other' });
    const foreign = await api.call('PUT', `/account/protection/subaccount/${quiet.id}`, {
      account: otherAccount.apiKey,
      body: { enabled: false },
    });
    expect(foreign.status).toBe(406);
    expect(foreign.body.code).toBe('SUBACCOUNT_NOT_FOUND');
    const cleared = await api.call('DELETE', `/account/protection/subaccount/${quiet.id}`, key);
    expect(cleared.body.subAccounts).toEqual([]);
  });
});
