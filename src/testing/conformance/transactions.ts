import { vitest } from '../vitest.js';
import { ALL_MAIL, type MailplaneStore } from '../../store/index.js';
import { sampleDomain } from './domains.js';
import { newAccount, newSubAccount, sampleSubAccount, unique } from './fixtures.js';
import { orderedId, sampleBatch, sampleEvent, sampleMessage } from './messages.js';

const T0 = 1_700_000_000_000_000_000n;
const page = { limit: 100, offset: 0 };

/**
 * Writes to every aggregate in transaction `tx` (rate limits excepted: their contract lets a batch
 * of hits commit one by one). Answers what it wrote, for the readers to look for.
 */
async function writeEverywhere(tx: MailplaneStore, accountId: number, subAccountId: number) {
  const sub = await tx.subAccounts.create(sampleSubAccount(accountId, unique('tx-sub')));
  const domain = await tx.domains.create(sampleDomain(subAccountId, `${unique('tx')}.example.com`));
  const [suppression] = await tx.suppressions.add(subAccountId, [{ email: 'tx@example.com', type: 0, created: T0 }]);
  const ips = await tx.ips.allocate(accountId, [
    {
      accountId,
      publicIp: '192.0.2.77',
      reverseDnsHostname: '',
      type: 1,
      state: 0,
      autoWarmupEnabled: false,
      warmupStartedAt: 0n,
      created: T0,
    },
  ]);
  const ipId = ips.ok ? ips.value[0]!.id : -1;
  const tpsp = await tx.tpsps.create({
    accountId,
    name: 'tx-tpsp',
    kind: 3,
    host: 'smtp.example.com',
    port: 587,
    security: 'starttls',
    username: 'u',
    passwordSealed: '',
    created: T0,
  });
  const pool = await tx.ipPools.create(
    accountId,
    {
      name: 'tx-pool',
      routingStrategy: 0,
      routingMetaData: '{}',
      shouldOverflow: false,
      overflowPoolId: null,
      warmupInterval: 24,
      ipIds: [ipId],
      tpspIds: [],
    },
    T0,
  );
  const toggles = {
    processed: true,
    delivered: true,
    dropped: false,
    softBounced: false,
    hardBounced: false,
    opened: false,
    clicked: false,
    unsubscribed: false,
    spam: false,
    sent: false,
    smtpDropped: false,
    uniqueOpen: false,
    uniqueClick: false,
    incident: false,
  };
  const webhook = await tx.webhooks.create({
    accountId,
    url: 'https://hooks.example.com/tx',
    enabled: true,
    secretSealed: 's',
    created: T0,
    ...toggles,
  });
  const [job] = await tx.jobs.enqueue([{ kind: 'tx-job', payload: { n: 1 }, runAt: 0, dedupeKey: 'tx' }]);
  await tx.stats.increment([
    { accountId, subAccountId, day: '2026-03-04', group: ALL_MAIL, counters: { processed: 3 } },
  ]);
  const batch = sampleBatch(orderedId(500, 0), accountId, subAccountId);
  const message = sampleMessage(batch, orderedId(500, 1), 'tx@example.com');
  await tx.messages.insertAccepted(batch, [message], [sampleEvent(message, orderedId(500, 2), 0)]);
  await tx.warmup.addTraffic([
    { ipId, startedAt: T0, provider: 1, day: '2026-03-04', window: 0, sent: 2, bounced: 0, deferred: 0 },
  ]);
  const saved = await tx.warmup.saveProgress({ ipId, startedAt: T0, evaluated: 1, held: [1], updated: T0 }, 0);
  return { sub, domain, suppression, ips, ipId, tpsp, pool, webhook, job, message, saved };
}

/** `transaction(work)`: atomic across every aggregate, checked through every reader of each. */
export function transactionConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('transactions', () => {
    it('commits when the work resolves and rolls back when it rejects', async () => {
      const account = await newAccount(store());
      await store().transaction(async (tx) => {
        await tx.subAccounts.create(sampleSubAccount(account.id, 'Kept'));
      });
      await expect(
        store().transaction(async (tx) => {
          await tx.subAccounts.create(sampleSubAccount(account.id, 'Lost'));
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      const names = (await store().subAccounts.list(account.id, { limit: 10, offset: 0 })).map((s) => s.name);
      expect(names).toEqual(['Kept']);
    });

    it('rolls back the writes of every aggregate together: nothing is visible through any reader', async () => {
      const account = await newAccount(store());
      const sub = await newSubAccount(store(), account.id);
      let written: Awaited<ReturnType<typeof writeEverywhere>> | undefined;
      await expect(
        store().transaction(async (tx) => {
          written = await writeEverywhere(tx, account.id, sub.id);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      // Every write succeeded inside the transaction...
      expect(written).toBeDefined();
      const w = written!;
      for (const outcome of [w.sub, w.domain, w.ips, w.tpsp, w.pool, w.webhook]) expect(outcome.ok).toBe(true);
      expect(w.saved).toBe(true);
      // ...and none survived it.
      expect(await store().subAccounts.list(account.id, page)).toEqual([sub]);
      expect(w.sub.ok && (await store().subAccounts.get(account.id, w.sub.value.id))).toBeNull();
      expect(await store().domains.list(sub.id, page)).toEqual([]);
      expect(await store().suppressions.find(sub.id, 'tx@example.com')).toBeNull();
      expect(await store().suppressions.list(sub.id, page)).toEqual([]);
      expect(await store().ips.list(account.id, page)).toEqual([]);
      expect(await store().ips.findByAddresses(account.id, ['192.0.2.77'])).toEqual([]);
      expect(await store().tpsps.list(account.id, page)).toEqual([]);
      expect(await store().ipPools.list(account.id, page)).toEqual([]);
      expect(await store().ipPools.findByName(account.id, 'tx-pool')).toBeNull();
      expect(await store().webhooks.list(account.id, page)).toEqual([]);
      expect(await store().webhooks.listEnabledForEvent(account.id, 'processed')).toEqual([]);
      expect(await store().jobs.countByState('tx-job')).toEqual({ pending: 0, running: 0, dead: 0 });
      expect(await store().jobs.claim({ workerId: 'w', kinds: ['tx-job'], limit: 10, now: 1, leaseMs: 1000 })).toEqual(
        [],
      );
      expect(await store().stats.daily({ accountId: account.id }, '2026-03-01', '2026-03-31')).toEqual([]);
      expect(await store().messages.getForDelivery(w.message.id)).toBeNull();
      expect(await store().messages.listEvents(w.message.id)).toEqual([]);
      expect(await store().warmup.sentOn([w.ipId], '2026-03-04')).toEqual([]);
      expect(await store().warmup.progressOf([w.ipId])).toEqual([]);
      // The unique names and keys it took are free again: the same writes succeed afterwards.
      const again = await store().transaction((tx) => writeEverywhere(tx, account.id, sub.id));
      for (const outcome of [again.domain, again.ips, again.tpsp, again.pool, again.webhook])
        expect(outcome.ok).toBe(true);
      expect(again.job).toMatchObject({ created: true });
    });

    it('commits the writes of every aggregate together, each readable through two paths', async () => {
      const account = await newAccount(store());
      const sub = await newSubAccount(store(), account.id);
      const w = await store().transaction((tx) => writeEverywhere(tx, account.id, sub.id));
      if (!w.sub.ok || !w.domain.ok || !w.tpsp.ok || !w.pool.ok || !w.webhook.ok)
        throw new Error('a write was refused');
      expect(await store().subAccounts.get(account.id, w.sub.value.id)).toEqual(w.sub.value);
      expect(await store().subAccounts.findByApiKeyHash(w.sub.value.apiKeyHash)).toEqual(w.sub.value);
      expect(await store().domains.get(sub.id, w.domain.value.id)).toEqual(w.domain.value);
      expect(await store().domains.findByName(sub.id, w.domain.value.name)).toEqual(w.domain.value);
      expect(await store().suppressions.list(sub.id, page)).toEqual([w.suppression]);
      expect(await store().suppressions.isSuppressed(sub.id, 'TX@example.com', T0)).toBe(true);
      expect(await store().ips.get(account.id, w.ipId)).toEqual(w.ips.ok && w.ips.value[0]);
      expect(await store().tpsps.list(account.id, page)).toEqual([w.tpsp.value]);
      expect(await store().ipPools.get(account.id, w.pool.value.pool.id)).toEqual(w.pool.value);
      expect(await store().ipPools.findByName(account.id, 'TX-POOL')).toEqual(w.pool.value.pool);
      expect(await store().webhooks.listEnabledForEvent(account.id, 'delivered')).toEqual([w.webhook.value]);
      expect(await store().jobs.get(w.job!.id!)).toMatchObject({ kind: 'tx-job', payload: { n: 1 }, state: 'pending' });
      expect(
        await store().stats.total({ accountId: account.id, subAccountId: sub.id }, '2026-03-04', '2026-03-04'),
      ).toMatchObject({ processed: 3 });
      expect((await store().messages.get(account.id, w.message.id))?.message).toEqual(w.message);
      expect(await store().warmup.sentOn([w.ipId], '2026-03-04')).toEqual([{ ipId: w.ipId, provider: 1, sent: 2 }]);
      expect(await store().warmup.progressOf([w.ipId])).toEqual([
        { ipId: w.ipId, startedAt: T0, evaluated: 1, held: [1], updated: T0 },
      ]);
    });
  });
}
