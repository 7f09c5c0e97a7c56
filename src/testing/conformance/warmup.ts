import { vitest } from '../vitest.js';
import type { MailplaneStore, WarmupTrafficIncrement } from '../../store/index.js';
import { newAccount } from './fixtures.js';

const T = 1_733_844_681_120_384_511n;

async function warmingIp(store: MailplaneStore, address = '192.0.2.10') {
  const account = await newAccount(store);
  const outcome = await store.ips.allocate(account.id, [
    {
      accountId: account.id,
      publicIp: address,
      reverseDnsHostname: '',
      type: 1,
      state: 2,
      autoWarmupEnabled: true,
      warmupStartedAt: T,
      created: T,
    },
  ]);
  if (!outcome.ok) throw new Error('allocation failed');
  return outcome.value[0]!;
}

const send = (ipId: number, extra: Partial<WarmupTrafficIncrement> = {}): WarmupTrafficIncrement => ({
  ipId,
  startedAt: T,
  provider: 0,
  day: '2026-11-22',
  window: 0,
  sent: 1,
  bounced: 0,
  deferred: 0,
  ...extra,
});

/** Conformance tests of {@link WarmupStore}. */
export function warmupStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('warmup', () => {
    it('adds traffic: daily sends per IP and provider, window traffic per warmup', async () => {
      const ip = await warmingIp(store());
      await store().warmup.addTraffic([send(ip.id), send(ip.id), send(ip.id, { provider: 3, deferred: 1 })]);
      await store().warmup.addTraffic([send(ip.id, { bounced: 1 }), send(ip.id, { day: '2026-11-23', window: 1 })]);
      expect(await store().warmup.sentOn([ip.id], '2026-11-22')).toEqual([
        { ipId: ip.id, provider: 0, sent: 3 },
        { ipId: ip.id, provider: 3, sent: 1 },
      ]);
      expect(await store().warmup.sentOn([ip.id], '2026-11-23')).toEqual([{ ipId: ip.id, provider: 0, sent: 1 }]);
      expect(await store().warmup.sentOn([], '2026-11-22')).toEqual([]);
      expect(await store().warmup.trafficBetween(ip.id, T, 0, 1)).toEqual([
        { provider: 0, sent: 3, bounced: 1, deferred: 0 },
        { provider: 3, sent: 1, bounced: 0, deferred: 1 },
      ]);
      expect(await store().warmup.trafficBetween(ip.id, T, 0, 2)).toContainEqual({
        provider: 0,
        sent: 4,
        bounced: 1,
        deferred: 0,
      });
      // Another warmup of the same IP keeps its own traffic.
      expect(await store().warmup.trafficBetween(ip.id, T + 1n, 0, 2)).toEqual([]);
    });

    it('counts every one of many concurrent increments', async () => {
      const ip = await warmingIp(store());
      await Promise.all(Array.from({ length: 20 }, () => store().warmup.addTraffic([send(ip.id)])));
      expect(await store().warmup.sentOn([ip.id], '2026-11-22')).toEqual([{ ipId: ip.id, provider: 0, sent: 20 }]);
    });

    it('reserves sends up to a cap and refuses beyond it, atomically under 50 concurrent reservations', async () => {
      const ip = await warmingIp(store());
      const day = { ipId: ip.id, day: '2026-11-22', provider: 2 };
      await store().warmup.addTraffic([send(ip.id, { provider: 2 }), send(ip.id, { provider: 2 })]);
      const answers = await Promise.all(Array.from({ length: 50 }, () => store().warmup.reserveSend(day, 12)));
      expect(answers.filter(Boolean)).toHaveLength(10);
      expect(await store().warmup.sentOn([ip.id], '2026-11-22')).toEqual([{ ipId: ip.id, provider: 2, sent: 12 }]);
      expect(await store().warmup.reserveSend(day, 12)).toBe(false);
      // A reserved send's outcome adds its window traffic only: the day's count has it already.
      await store().warmup.addTraffic([send(ip.id, { provider: 2, reserved: true })]);
      expect(await store().warmup.sentOn([ip.id], '2026-11-22')).toEqual([{ ipId: ip.id, provider: 2, sent: 12 }]);
      expect(await store().warmup.trafficBetween(ip.id, T, 0, 1)).toEqual([
        { provider: 2, sent: 3, bounced: 0, deferred: 0 },
      ]);
      // A reservation given back makes room for one more.
      await store().warmup.returnSend(day);
      expect(await store().warmup.reserveSend(day, 12)).toBe(true);
      expect(await store().warmup.reserveSend({ ...day, provider: 3 }, 0)).toBe(false);
      expect(await store().warmup.reserveSend({ ...day, provider: 3 }, Infinity)).toBe(true);
      // Never below zero; an IP that is gone reserves nothing.
      await store().warmup.returnSend({ ...day, provider: 4 });
      await store().warmup.returnSend({ ...day, provider: 3 });
      await store().warmup.returnSend({ ...day, provider: 3 });
      expect(await store().warmup.sentOn([ip.id], '2026-11-22')).toEqual([{ ipId: ip.id, provider: 2, sent: 12 }]);
      expect((await store().ips.delete(ip.accountId, ip.id)).ok).toBe(true);
      expect(await store().warmup.reserveSend(day, Infinity)).toBe(false);
    });

    it('saves progress compare-and-set, and a new warmup replaces an old one', async () => {
      const ip = await warmingIp(store());
      const held = new Array<number>(12).fill(0);
      expect(await store().warmup.progressOf([ip.id])).toEqual([]);
      expect(await store().warmup.saveProgress({ ipId: ip.id, startedAt: T, evaluated: 1, held, updated: 5n }, 0)).toBe(
        true,
      );
      // A second evaluation of the same boundary loses.
      expect(await store().warmup.saveProgress({ ipId: ip.id, startedAt: T, evaluated: 1, held, updated: 6n }, 0)).toBe(
        false,
      );
      const gmailHeld = [1, ...held.slice(1)];
      expect(
        await store().warmup.saveProgress({ ipId: ip.id, startedAt: T, evaluated: 2, held: gmailHeld, updated: 7n }, 1),
      ).toBe(true);
      expect(await store().warmup.saveProgress({ ipId: ip.id, startedAt: T, evaluated: 3, held, updated: 8n }, 1)).toBe(
        false,
      );
      expect(await store().warmup.progressOf([ip.id])).toEqual([
        { ipId: ip.id, startedAt: T, evaluated: 2, held: gmailHeld, updated: 7n },
      ]);
      // Restarted warmup: its first save replaces the old row.
      expect(
        await store().warmup.saveProgress({ ipId: ip.id, startedAt: T + 10n, evaluated: 1, held, updated: 9n }, 0),
      ).toBe(true);
      expect(await store().warmup.progressOf([ip.id])).toEqual([
        { ipId: ip.id, startedAt: T + 10n, evaluated: 1, held, updated: 9n },
      ]);
    });

    it('prunes old days and other warmups, and goes with its IP', async () => {
      const ip = await warmingIp(store());
      await store().warmup.addTraffic([
        send(ip.id, { day: '2026-11-20' }),
        send(ip.id),
        send(ip.id, { startedAt: T - 1n }),
      ]);
      await store().warmup.saveProgress({ ipId: ip.id, startedAt: T, evaluated: 1, held: [], updated: 1n }, 0);
      await store().warmup.prune(ip.id, '2026-11-21', T);
      expect(await store().warmup.sentOn([ip.id], '2026-11-20')).toEqual([]);
      expect(await store().warmup.sentOn([ip.id], '2026-11-22')).toEqual([{ ipId: ip.id, provider: 0, sent: 2 }]);
      expect(await store().warmup.trafficBetween(ip.id, T - 1n, 0, 10)).toEqual([]);
      expect(await store().warmup.trafficBetween(ip.id, T, 0, 10)).toHaveLength(1);
      const deleted = await store().ips.delete(ip.accountId, ip.id);
      expect(deleted.ok).toBe(true);
      expect(await store().warmup.progressOf([ip.id])).toEqual([]);
      expect(await store().warmup.sentOn([ip.id], '2026-11-22')).toEqual([]);
      // An outcome recorded after the delete (the message was out) skips the IP, without failing its transaction.
      const other = await warmingIp(store(), '192.0.2.11');
      await store().transaction(async (tx) => tx.warmup.addTraffic([send(ip.id), send(other.id)]));
      expect(await store().warmup.sentOn([ip.id, other.id], '2026-11-22')).toEqual([
        { ipId: other.id, provider: 0, sent: 1 },
      ]);
    });
  });
}
