/**
 * Retention of received mail (docs/inbound.md, docs/activity.md "Retention"), on the inbound bench
 * (test/support/inbound.ts): a real listener, a real webhook receiver, real SQLite and PostgreSQL. A
 * sub-account's own `retentionDays`, set through the API, applies to the mail it received as to
 * the mail it sent, shorter or longer than the instance's 30 days; the post log of a message goes
 * with it, and on its own after the instance's days as the webhook delivery log does.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { purgeInboundMessages, purgeInboundPostAttempts } from '../../src/retention/jobs.js';
import { storeKinds } from '../support/databases.js';
import { startInboundEnv, type InboundEnv } from '../support/inbound.js';

const DAY = 86_400_000;

describe.each(storeKinds)('retention of received mail (%s)', (kind) => {
  let bench: InboundEnv;
  beforeEach(async () => {
    bench = await startInboundEnv(kind);
  });
  afterEach(async () => {
    await bench?.close();
  });

  const ctx = () => contextOf(bench.env.api.mailplane);
  const setRetentionDays = async (retentionDays: number | null) => {
    const { api, sender } = bench.env;
    const answer = await api.call('PUT', `/account/subaccount/${sender.subAccount.id}`, {
      account: api.accountKey,
      body: { retentionDays },
    });
    expect(answer.status).toBe(200);
  };
  const listed = async () =>
    (
      await bench.env.api.call('GET', '/subaccount/inbound/message', { sub: bench.env.key, query: { limit: 100 } })
    ).body.map((m: { subject: string }) => m.subject) as string[];
  const attempts = (id: string) =>
    ctx().store.inbound.listPostAttempts(bench.env.sender.subAccount.id, id, { limit: 10, offset: 0 });
  /** Receives one message to a webhook route and one to a store route; answers the posted one's id. */
  const receiveTwo = async () => {
    await bench.route(`support@${bench.domain}`, 'webhook');
    await bench.route(`info@${bench.domain}`, 'store');
    await bench.submit({ to: `support@${bench.domain}`, subject: 'posted', text: 'x' });
    await bench.submit({ to: `info@${bench.domain}`, subject: 'stored', text: 'x' });
    const posted = (await bench.messages()).find((m) => m.subject === 'posted')!;
    await vi.waitFor(async () => expect(await attempts(posted.id)).toHaveLength(1), { timeout: 15_000 });
    return posted.id;
  };

  it("deletes a sub-account's received mail after its own shorter retentionDays, with the post log", async () => {
    const posted = await receiveTwo();
    bench.env.advance(10 * DAY);
    await purgeInboundMessages(ctx());
    // Within the instance's 30 days: kept.
    expect((await listed()).sort()).toEqual(['posted', 'stored']);

    await setRetentionDays(7);
    await purgeInboundMessages(ctx());
    expect(await listed()).toEqual([]);
    expect(await attempts(posted)).toEqual([]);
  });

  it("keeps a sub-account's received mail for its own longer retentionDays; the post log goes after 30 days", async () => {
    await setRetentionDays(90);
    const posted = await receiveTwo();
    bench.env.advance(40 * DAY);
    await purgeInboundMessages(ctx());
    await purgeInboundPostAttempts(ctx());
    expect((await listed()).sort()).toEqual(['posted', 'stored']);
    expect(await attempts(posted)).toEqual([]);

    // Back to the instance's 30 days: the 40-day-old mail goes at the next run.
    await setRetentionDays(null);
    await purgeInboundMessages(ctx());
    expect(await listed()).toEqual([]);
  });
});
