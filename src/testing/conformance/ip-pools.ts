import { vitest } from '../vitest.js';
import type { IpPoolInput, MailplaneStore, NewIp, NewTpsp } from '../../store/index.js';
import { newAccount, newSubAccount } from './fixtures.js';

const T = 1_733_844_681_120_384_511n;

/** A new IP of `accountId` at `publicIp` with neutral settings. */
const sampleIp = (accountId: number, publicIp: string): NewIp => ({
  accountId,
  publicIp,
  reverseDnsHostname: '',
  type: 1,
  state: 0,
  autoWarmupEnabled: false,
  warmupStartedAt: 0n,
  created: T,
});

const sampleTpsp = (accountId: number, name: string): NewTpsp => ({
  accountId,
  name,
  kind: 3,
  host: 'smtp.example.net',
  port: 587,
  security: 'starttls',
  username: 'user',
  passwordSealed: 'sealed',
  created: T,
});

const poolInput = (name: string, extra: Partial<IpPoolInput> = {}): IpPoolInput => ({
  name,
  routingStrategy: 0,
  routingMetaData: '{}',
  shouldOverflow: false,
  overflowPoolId: null,
  warmupInterval: 24,
  ipIds: [],
  tpspIds: [],
  ...extra,
});

/** IPs, third-party sending providers and IP pools: scoping, atomic pool writes, reference checks. */
export function ipPoolStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  const allocate = async (accountId: number, ...addresses: string[]) => {
    const outcome = await store().ips.allocate(
      accountId,
      addresses.map((a) => sampleIp(accountId, a)),
    );
    if (!outcome.ok) throw new Error(`fixture allocation: ${outcome.reason}`);
    return outcome.value;
  };
  const newTpsp = async (accountId: number, name: string) => {
    const outcome = await store().tpsps.create(sampleTpsp(accountId, name));
    if (!outcome.ok) throw new Error(`fixture TPSP: ${outcome.reason}`);
    return outcome.value;
  };
  const newPool = async (accountId: number, input: IpPoolInput) => {
    const outcome = await store().ipPools.create(accountId, input, T);
    if (!outcome.ok) throw new Error(`fixture pool: ${outcome.reason}`);
    return outcome.value;
  };
  const poolNames = async (accountId: number) =>
    (await store().ipPools.list(accountId, { limit: 100, offset: 0 })).map((p) => p.pool.name);

  describe('ips', () => {
    it('allocates all or nothing, scoped by account, keeping timestamps exact', async () => {
      const a = await newAccount(store(), 'a');
      const b = await newAccount(store(), 'b');
      const [ip] = await allocate(a.id, '127.0.0.2', '2001:db8::1');
      expect(ip).toMatchObject({ accountId: a.id, publicIp: '127.0.0.2', created: T, updated: T, state: 0 });
      expect(await store().ips.get(a.id, ip!.id)).toEqual(ip);
      expect(await store().ips.get(b.id, ip!.id)).toBeNull();
      expect(
        await store().ips.allocate(a.id, [sampleIp(a.id, '127.0.0.9'), sampleIp(a.id, '2001:db8::1')]),
      ).toMatchObject({
        ok: false,
        reason: 'already-allocated',
      });
      expect((await store().ips.list(a.id, { limit: 10, offset: 0 })).map((i) => i.publicIp)).toEqual([
        '127.0.0.2',
        '2001:db8::1',
      ]);
      expect(await store().ips.list(b.id, { limit: 10, offset: 0 })).toEqual([]);
      expect((await store().ips.findByAddresses(a.id, ['2001:db8::1', '10.0.0.1'])).map((i) => i.publicIp)).toEqual([
        '2001:db8::1',
      ]);
      expect(await store().ips.list(a.id, { limit: 10, offset: 0, search: 'db8' })).toHaveLength(1);
    });

    it('lets an address belong to one account only, until that account deletes it', async () => {
      const a = await newAccount(store(), 'a');
      const b = await newAccount(store(), 'b');
      const [ip] = await allocate(a.id, '127.0.0.2');
      // all or nothing across accounts too: 127.0.0.9 is not stored either
      expect(
        await store().ips.allocate(b.id, [sampleIp(b.id, '127.0.0.9'), sampleIp(b.id, '127.0.0.2')]),
      ).toMatchObject({
        ok: false,
        reason: 'already-allocated',
      });
      expect(await store().ips.list(b.id, { limit: 10, offset: 0 })).toEqual([]);
      expect(await store().ips.findByAddresses(b.id, ['127.0.0.2'])).toEqual([]);
      expect((await store().ips.delete(a.id, ip!.id)).ok).toBe(true);
      expect((await allocate(b.id, '127.0.0.2', '127.0.0.9')).map((i) => i.accountId)).toEqual([b.id, b.id]);
    });

    it('lets exactly one of 10 accounts allocating one address at once succeed', async () => {
      const accounts = await Promise.all(Array.from({ length: 10 }, (_, i) => newAccount(store(), `racer${i}`)));
      const outcomes = await Promise.all(
        accounts.map((account) => store().ips.allocate(account.id, [sampleIp(account.id, '127.0.0.4')])),
      );
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      const held = await Promise.all(
        accounts.map(async (account) => (await store().ips.list(account.id, { limit: 10, offset: 0 })).length),
      );
      expect(held.reduce((sum, n) => sum + n, 0)).toBe(1);
    });

    it('lets exactly one of 10 concurrent allocations of an address succeed', async () => {
      const account = await newAccount(store());
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, () => store().ips.allocate(account.id, [sampleIp(account.id, '127.0.0.3')])),
      );
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(await store().ips.list(account.id, { limit: 10, offset: 0 })).toHaveLength(1);
    });

    it('updates and deletes within the account only, refusing to delete a pool member', async () => {
      const a = await newAccount(store(), 'a');
      const b = await newAccount(store(), 'b');
      const [ip, member] = await allocate(a.id, '127.0.0.2', '127.0.0.3');
      expect(await store().ips.update(b.id, ip!.id, { state: 1, updated: 2n })).toBeNull();
      expect(
        await store().ips.update(a.id, ip!.id, { state: 2, autoWarmupEnabled: true, warmupStartedAt: 5n, updated: 6n }),
      ).toMatchObject({
        state: 2,
        autoWarmupEnabled: true,
        warmupStartedAt: 5n,
        updated: 6n,
      });
      await newPool(a.id, poolInput('P', { ipIds: [member!.id] }));
      expect(await store().ips.delete(a.id, member!.id)).toEqual({ ok: false, reason: 'in-pool' });
      expect(await store().ips.delete(b.id, ip!.id)).toEqual({ ok: false, reason: 'not-found' });
      expect((await store().ips.delete(a.id, ip!.id)).ok).toBe(true);
      expect(await store().ips.get(a.id, ip!.id)).toBeNull();
    });
  });

  describe('tpsps', () => {
    it('creates, renames and deletes with case-insensitive unique names, scoped by account', async () => {
      const a = await newAccount(store(), 'a');
      const b = await newAccount(store(), 'b');
      const t = await newTpsp(a.id, 'Relay');
      expect(t).toMatchObject({
        name: 'Relay',
        kind: 3,
        port: 587,
        security: 'starttls',
        passwordSealed: 'sealed',
        created: T,
      });
      expect(await store().tpsps.create(sampleTpsp(a.id, 'RELAY'))).toEqual({ ok: false, reason: 'duplicate-name' });
      expect((await store().tpsps.create(sampleTpsp(b.id, 'Relay'))).ok).toBe(true);
      const other = await newTpsp(a.id, 'Other');
      expect(await store().tpsps.update(a.id, other.id, { name: 'relay', updated: 2n })).toEqual({
        ok: false,
        reason: 'duplicate-name',
      });
      expect(await store().tpsps.update(b.id, t.id, { name: 'x', updated: 2n })).toEqual({
        ok: false,
        reason: 'not-found',
      });
      const renamed = await store().tpsps.update(a.id, t.id, {
        name: 'relay',
        port: 465,
        security: 'tls',
        updated: 3n,
      });
      expect(renamed.ok && renamed.value).toMatchObject({ name: 'relay', port: 465, security: 'tls', updated: 3n });
      expect((await store().tpsps.list(a.id, { limit: 10, offset: 0, search: 'REL' })).map((x) => x.id)).toEqual([
        t.id,
      ]);
      await newPool(a.id, poolInput('P', { tpspIds: [t.id] }));
      expect(await store().tpsps.delete(a.id, t.id)).toEqual({ ok: false, reason: 'in-pool' });
      expect((await store().tpsps.delete(a.id, other.id)).ok).toBe(true);
      expect(await store().tpsps.get(a.id, other.id)).toBeNull();
    });
  });

  describe('ip pools', () => {
    it('ensures exactly one system pool per account, also under concurrent calls', async () => {
      const account = await newAccount(store());
      const all = await Promise.all(Array.from({ length: 10 }, () => store().ipPools.ensureSystemPool(account.id, T)));
      expect(new Set(all.map((d) => d.pool.id)).size).toBe(1);
      expect(all[0]!.pool).toMatchObject({
        name: 'Shared',
        type: 0,
        routingStrategy: 0,
        routingMetaData: '{}',
        created: T,
      });
      expect(await poolNames(account.id)).toEqual(['Shared']);
    });

    it('creates a pool with its members and reads it back whole', async () => {
      const account = await newAccount(store());
      const [ip1, ip2] = await allocate(account.id, '127.0.0.2', '127.0.0.3');
      const t = await newTpsp(account.id, 'Relay');
      const target = await newPool(account.id, poolInput('Target'));
      const detail = await newPool(
        account.id,
        poolInput('Main', {
          ipIds: [ip2!.id, ip1!.id],
          tpspIds: [t.id],
          routingStrategy: 2,
          routingMetaData: '{"x":"1"}',
          shouldOverflow: true,
          overflowPoolId: target.pool.id,
        }),
      );
      expect(detail.pool).toMatchObject({
        name: 'Main',
        type: 1,
        routingStrategy: 2,
        routingMetaData: '{"x":"1"}',
        shouldOverflow: true,
        overflowPoolId: target.pool.id,
      });
      expect(detail.overflowPoolName).toBe('Target');
      expect(detail.ips.map((i) => i.id)).toEqual([ip1!.id, ip2!.id]);
      expect(detail.tpsps.map((x) => x.id)).toEqual([t.id]);
      expect(await store().ipPools.get(account.id, detail.pool.id)).toEqual(detail);
      expect((await store().ipPools.findByName(account.id, 'MAIN'))?.id).toBe(detail.pool.id);
    });

    it('refuses bad references and duplicate names, writing nothing', async () => {
      const a = await newAccount(store(), 'a');
      const b = await newAccount(store(), 'b');
      const [foreignIp] = await allocate(b.id, '127.0.0.20');
      const foreignTpsp = await newTpsp(b.id, 'theirs');
      const foreignPool = await newPool(b.id, poolInput('Theirs'));
      const [mine] = await allocate(a.id, '127.0.0.2');
      await newPool(a.id, poolInput('Holder', { ipIds: [mine!.id] }));
      const attempts: Array<[IpPoolInput, string]> = [
        [poolInput('X', { ipIds: [foreignIp!.id] }), 'unknown-ip'],
        [poolInput('X', { tpspIds: [foreignTpsp.id] }), 'unknown-tpsp'],
        [poolInput('X', { ipIds: [mine!.id] }), 'ip-in-other-pool'],
        [poolInput('X', { overflowPoolId: foreignPool.pool.id }), 'unknown-overflow-pool'],
        [poolInput('holder'), 'duplicate-name'],
      ];
      for (const [input, reason] of attempts) {
        expect(await store().ipPools.create(a.id, input, T)).toEqual({ ok: false, reason });
      }
      expect(await poolNames(a.id)).toEqual(['Holder']);
    });

    it('updates a pool as a whole, refusing overflow cycles', async () => {
      const account = await newAccount(store());
      const [ip1, ip2] = await allocate(account.id, '127.0.0.2', '127.0.0.3');
      const a = await newPool(account.id, poolInput('A', { ipIds: [ip1!.id] }));
      const b = await newPool(account.id, poolInput('B', { overflowPoolId: a.pool.id }));
      const c = await newPool(account.id, poolInput('C', { overflowPoolId: b.pool.id }));
      expect(
        await store().ipPools.update(account.id, a.pool.id, poolInput('A', { overflowPoolId: c.pool.id }), 2n),
      ).toEqual({ ok: false, reason: 'overflow-cycle' });
      expect(
        await store().ipPools.update(account.id, a.pool.id, poolInput('A', { overflowPoolId: a.pool.id }), 2n),
      ).toEqual({ ok: false, reason: 'overflow-cycle' });
      expect(await store().ipPools.update(account.id, b.pool.id, poolInput('c'), 2n)).toEqual({
        ok: false,
        reason: 'duplicate-name',
      });
      const updated = await store().ipPools.update(account.id, a.pool.id, poolInput('A2', { ipIds: [ip2!.id] }), 3n);
      expect(updated.ok && updated.value.ips.map((i) => i.id)).toEqual([ip2!.id]);
      expect(updated.ok && updated.value.pool).toMatchObject({ name: 'A2', updated: 3n, created: T });
      expect((await store().ipPools.get(account.id, b.pool.id))?.overflowPoolName).toBe('A2');
      // ip1 left A, so another pool may take it
      expect((await store().ipPools.create(account.id, poolInput('D', { ipIds: [ip1!.id] }), T)).ok).toBe(true);
      const other = await newAccount(store(), 'other');
      expect(await store().ipPools.update(other.id, a.pool.id, poolInput('Z'), 4n)).toEqual({
        ok: false,
        reason: 'not-found',
      });
    });

    it('lets exactly one of 8 concurrent pools take the same IP', async () => {
      const account = await newAccount(store());
      const [ip] = await allocate(account.id, '127.0.0.2');
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store().ipPools.create(account.id, poolInput(`P${i}`, { ipIds: [ip!.id] }), T),
        ),
      );
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(outcomes.filter((o) => !o.ok).map((o) => !o.ok && o.reason)).toEqual(Array(7).fill('ip-in-other-pool'));
      expect(await poolNames(account.id)).toHaveLength(1);
    });

    it('deletes a pool leaving its IPs, but never the system pool or an overflow target', async () => {
      const account = await newAccount(store());
      const system = await store().ipPools.ensureSystemPool(account.id, T);
      const [ip] = await allocate(account.id, '127.0.0.2');
      const target = await newPool(account.id, poolInput('Target', { ipIds: [ip!.id] }));
      const source = await newPool(account.id, poolInput('Source', { overflowPoolId: target.pool.id }));
      const sub = await newSubAccount(store(), account.id);
      await store().subAccounts.update(account.id, sub.id, { defaultIpPoolId: source.pool.id, updated: 2n });
      expect(await store().ipPools.delete(account.id, system.pool.id)).toEqual({ ok: false, reason: 'system-pool' });
      expect(await store().ipPools.delete(account.id, target.pool.id)).toEqual({
        ok: false,
        reason: 'overflow-target',
      });
      expect((await store().ipPools.delete(account.id, source.pool.id)).ok).toBe(true);
      expect((await store().subAccounts.get(account.id, sub.id))?.defaultIpPoolId).toBeNull();
      const other = await newAccount(store(), 'other');
      expect(await store().ipPools.delete(other.id, target.pool.id)).toEqual({ ok: false, reason: 'not-found' });
      expect((await store().ipPools.delete(account.id, target.pool.id)).ok).toBe(true);
      expect(await store().ips.get(account.id, ip!.id)).not.toBeNull();
      expect((await store().ips.delete(account.id, ip!.id)).ok).toBe(true);
      expect(await poolNames(account.id)).toEqual(['Shared']);
    });

    it('lists by id with a literal case-insensitive search, and rolls back with the caller’s transaction', async () => {
      const account = await newAccount(store());
      for (const name of ['Alpha', 'beta', '100%_done']) await newPool(account.id, poolInput(name));
      expect(
        (await store().ipPools.list(account.id, { limit: 10, offset: 0, search: 'ALPHA' })).map((p) => p.pool.name),
      ).toEqual(['Alpha']);
      expect(
        (await store().ipPools.list(account.id, { limit: 10, offset: 0, search: '%_' })).map((p) => p.pool.name),
      ).toEqual(['100%_done']);
      expect((await store().ipPools.list(account.id, { limit: 1, offset: 1 })).map((p) => p.pool.name)).toEqual([
        'beta',
      ]);
      const [ip] = await allocate(account.id, '127.0.0.2');
      await expect(
        store().transaction(async (tx) => {
          await tx.ipPools.create(account.id, poolInput('Lost', { ipIds: [ip!.id] }), T);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(await poolNames(account.id)).toEqual(['Alpha', 'beta', '100%_done']);
      expect((await store().ipPools.create(account.id, poolInput('Kept', { ipIds: [ip!.id] }), T)).ok).toBe(true);
    });
  });
}
