import { vitest } from '../vitest.js';
import type { AlertEntityType, AlertRecord, MailplaneStore, NewAlert } from '../../store/index.js';
import { sampleDomain } from './domains.js';
import { newAccount, newSubAccount, unique } from './fixtures.js';

const T = 1_781_000_000_000_000_000n;

/** A rule of `accountId` on its whole account, every field filled. */
export function sampleAlert(accountId: number, extra: Partial<NewAlert> = {}): NewAlert {
  return {
    accountId,
    name: 'High bounces',
    active: true,
    entityType: 'account',
    entityId: accountId,
    parameter: 0,
    threshold: 2.5,
    provider: null,
    processedCountThreshold: 100,
    windowHours: 24,
    emails: ['ops@example.com'],
    slackUrl: 'https://hooks.slack.example/services/T0/B0/x',
    created: T,
    ...extra,
  };
}

/** One entity of each kind in a new account, by entity type. */
async function entitiesOf(store: MailplaneStore): Promise<{ accountId: number; ids: Record<AlertEntityType, number> }> {
  const account = await newAccount(store);
  const sub = await newSubAccount(store, account.id);
  const ip = await store.ips.allocate(account.id, [
    {
      accountId: account.id,
      publicIp: `10.29.${account.id % 250}.1`,
      reverseDnsHostname: '',
      type: 1,
      state: 0,
      autoWarmupEnabled: false,
      warmupStartedAt: 0n,
      created: T,
    },
  ]);
  const pool = await store.ipPools.ensureSystemPool(account.id, T);
  const domain = await store.domains.create(sampleDomain(sub.id, `${unique('alerts')}.example.com`));
  if (!ip.ok || !domain.ok) throw new Error('fixture entities of an alert');
  return {
    accountId: account.id,
    ids: {
      account: account.id,
      subAccount: sub.id,
      ip: ip.value[0]!.id,
      ipPool: pool.pool.id,
      domain: domain.value.id,
    },
  };
}

/** Alert rules: scoping by account, the entity check on every write, search, count. */
export function alertStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('alert rules', () => {
    it('stores every field and reads it back, only to its account', async () => {
      const account = await newAccount(store());
      const other = await newAccount(store());
      const input = sampleAlert(account.id, {
        provider: 3,
        threshold: 0.3,
        emails: ['a@example.com', 'b@example.com'],
      });
      const created = await store().alerts.create(input);
      expect(created.ok).toBe(true);
      if (!created.ok) return;
      const { created: _c, ...fields } = input;
      expect(created.value).toMatchObject({ ...fields, updated: T });
      expect(await store().alerts.get(account.id, created.value.id)).toEqual(created.value);
      expect(await store().alerts.get(other.id, created.value.id)).toBeNull();
      expect(await store().alerts.list(other.id, { limit: 10, offset: 0 })).toEqual([]);
      expect(await store().alerts.count(other.id)).toBe(0);
      expect(await store().alerts.delete(other.id, created.value.id)).toBeNull();
      const foreign = await store().alerts.update(other.id, created.value.id, { name: 'x', updated: T + 1n });
      expect(foreign).toEqual({ ok: false, reason: 'not-found' });
      expect(await store().alerts.get(account.id, created.value.id)).toEqual(created.value);
    });

    it("accepts each kind of entity of the account and refuses another account's", async () => {
      const mine = await entitiesOf(store());
      const theirs = await entitiesOf(store());
      for (const [type, id] of Object.entries(mine.ids) as [AlertEntityType, number][]) {
        const ok = await store().alerts.create(sampleAlert(mine.accountId, { entityType: type, entityId: id }));
        expect(ok.ok, type).toBe(true);
        const foreignId = theirs.ids[type];
        const refused = await store().alerts.create(
          sampleAlert(mine.accountId, { entityType: type, entityId: foreignId }),
        );
        expect(refused, type).toEqual({ ok: false, reason: 'entity-not-found' });
        if (!ok.ok) continue;
        const moved = await store().alerts.update(mine.accountId, ok.value.id, {
          entityId: foreignId,
          updated: T + 1n,
        });
        expect(moved, type).toEqual({ ok: false, reason: 'entity-not-found' });
        expect(await store().alerts.get(mine.accountId, ok.value.id), type).toEqual(ok.value);
      }
      const beyond = await store().alerts.create(
        sampleAlert(mine.accountId, { entityType: 'subAccount', entityId: 2_147_483_648 }),
      );
      expect(beyond).toEqual({ ok: false, reason: 'entity-not-found' });
      expect(await store().alerts.count(mine.accountId)).toBe(5);
    });

    it('changes only the fields given and checks the entity type and id together', async () => {
      const { accountId, ids } = await entitiesOf(store());
      const created = await store().alerts.create(sampleAlert(accountId));
      if (!created.ok) throw new Error('fixture alert');
      // The sub-account's id as an IP id names no IP of the account: refused, nothing written.
      const mismatched = await store().alerts.update(accountId, created.value.id, {
        entityType: 'ip',
        entityId: ids.subAccount + 1000,
        name: 'renamed',
        updated: T + 1n,
      });
      expect(mismatched).toEqual({ ok: false, reason: 'entity-not-found' });
      expect(await store().alerts.get(accountId, created.value.id)).toEqual(created.value);
      const updated = await store().alerts.update(accountId, created.value.id, {
        entityType: 'subAccount',
        entityId: ids.subAccount,
        active: false,
        slackUrl: null,
        emails: [],
        updated: T + 2n,
      });
      expect(updated).toEqual({
        ok: true,
        value: {
          ...created.value,
          entityType: 'subAccount',
          entityId: ids.subAccount,
          active: false,
          slackUrl: null,
          emails: [],
          updated: T + 2n,
        },
      });
      expect(await store().alerts.update(accountId, 2_000_000, { updated: T })).toEqual({
        ok: false,
        reason: 'not-found',
      });
    });

    it('lists by id, searches names case-insensitively and literally, counts what it would list', async () => {
      const account = await newAccount(store());
      for (const name of ['Bounces EU', 'bounces US', 'Spam 100%', 'Volume'])
        await store().alerts.create(sampleAlert(account.id, { name }));
      const all = await store().alerts.list(account.id, { limit: 10, offset: 0 });
      expect(all.map((a) => a.name)).toEqual(['Bounces EU', 'bounces US', 'Spam 100%', 'Volume']);
      const found = await store().alerts.list(account.id, { limit: 10, offset: 0, search: 'BOUNCES' });
      expect(found.map((a) => a.name)).toEqual(['Bounces EU', 'bounces US']);
      expect(await store().alerts.count(account.id, 'BOUNCES')).toBe(2);
      expect((await store().alerts.list(account.id, { limit: 10, offset: 0, search: '0%' })).length).toBe(1);
      expect(await store().alerts.count(account.id, '_')).toBe(0);
      const second = await store().alerts.list(account.id, { limit: 2, offset: 1 });
      expect(second.map((a) => a.name)).toEqual(['bounces US', 'Spam 100%']);
      expect(await store().alerts.count(account.id)).toBe(4);
    });

    it('deletes a rule; its incidents stay, without the rule', async () => {
      const account = await newAccount(store());
      const created = await store().alerts.create(sampleAlert(account.id));
      if (!created.ok) throw new Error('fixture alert');
      const { incident } = await store().incidents.open(sampleIncident(account.id, created.value.id));
      expect(await store().alerts.delete(account.id, created.value.id)).toEqual(created.value);
      expect(await store().alerts.get(account.id, created.value.id)).toBeNull();
      expect(await store().alerts.delete(account.id, created.value.id)).toBeNull();
      expect(await store().incidents.get(account.id, incident.id)).toMatchObject({ alertId: null, threshold: 2.5 });
    });

    it('lists the active rules of every account in pages by id', async () => {
      const first = await newAccount(store());
      const second = await newAccount(store());
      const made: AlertRecord[] = [];
      for (const [accountId, active] of [
        [first.id, true],
        [second.id, false],
        [second.id, true],
      ] as const) {
        const created = await store().alerts.create(sampleAlert(accountId, { active }));
        if (!created.ok) throw new Error('rule not created');
        made.push(created.value);
      }
      const afterId = made[0]!.id - 1;
      const active = (await store().alerts.listActive(afterId, 1000)).filter((r) => r.id <= made[2]!.id);
      expect(active.map((r) => r.id)).toEqual([made[0]!.id, made[2]!.id]);
      expect((await store().alerts.listActive(afterId, 1)).map((r) => r.id)).toEqual([made[0]!.id]);
      expect((await store().alerts.listActive(made[0]!.id, 1))[0]!.id).toBe(made[2]!.id);
    });

    it("stores the protection settings of an account and its sub-accounts, never another account's", async () => {
      const account = await newAccount(store());
      const sub = await newSubAccount(store(), account.id);
      const other = await newAccount(store());
      const otherSub = await newSubAccount(store(), other.id);
      expect(await store().alerts.protection(account.id)).toEqual([]);
      expect(await store().alerts.setProtection(account.id, 0, { enabled: true, minProcessed: 50 }, T)).toBe(true);
      expect(await store().alerts.setProtection(account.id, sub.id, { enabled: false }, T + 1n)).toBe(true);
      expect(await store().alerts.setProtection(account.id, otherSub.id, { enabled: false }, T)).toBe(false);
      expect(await store().alerts.protection(account.id)).toEqual([
        { accountId: account.id, subAccountId: 0, settings: { enabled: true, minProcessed: 50 }, updated: T },
        { accountId: account.id, subAccountId: sub.id, settings: { enabled: false }, updated: T + 1n },
      ]);
      expect(await store().alerts.setProtection(account.id, 0, { enabled: false }, T + 2n)).toBe(true);
      expect(await store().alerts.setProtection(account.id, sub.id, null, T + 3n)).toBe(true);
      expect(await store().alerts.protection(account.id)).toEqual([
        { accountId: account.id, subAccountId: 0, settings: { enabled: false }, updated: T + 2n },
      ]);
      expect(await store().alerts.protection(other.id)).toEqual([]);
    });
  });
}

/** An incident of a rule on the account, as the evaluation opens it. */
export function sampleIncident(accountId: number, alertId: number | null, started = T) {
  return {
    accountId,
    topic: alertId === null ? 'protection:account' : `alert:${alertId}`,
    alertId,
    entityType: 'account' as const,
    entityId: accountId,
    parameter: 0 as const,
    provider: null,
    threshold: 2.5,
    windowHours: 24 as const,
    measuredValue: 12.25,
    sampleSize: 400,
    summary: 'hard-bounce rate 12.25 % over 24 hours (400 processed) crossed 2.5 %',
    started,
  };
}
