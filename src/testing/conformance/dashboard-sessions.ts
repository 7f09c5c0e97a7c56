import type { DashboardSessionRow, MailplaneStore } from '../../store/index.js';
import { vitest } from '../vitest.js';

const NOW = 1_800_000_000_000;

const session = (n: number, expiresAt: number): DashboardSessionRow => ({
  idHash: `hash-${n}`,
  kind: n % 2 === 0 ? 'account' : 'subaccount',
  sealedKey: `v1.sealed.${n}`,
  createdAt: NOW - 1_000,
  expiresAt,
});

/**
 * The {@link DashboardSessionStore} contract, for stores that have one: a session reads back until
 * it expires, sign-out removes it, and pruning removes only expired ones, in bounded batches.
 */
export function dashboardSessionStoreConformance(
  store: () => MailplaneStore,
  another?: (store: MailplaneStore) => Promise<MailplaneStore>,
): void {
  const { describe, expect, it } = vitest();
  describe('dashboard sessions', () => {
    it('reads a session back exactly until it expires, and not after sign-out', async () => {
      const sessions = store().dashboardSessions;
      if (!sessions) return;
      await sessions.create(session(1, NOW + 60_000));
      await sessions.create(session(2, NOW + 60_000));
      expect(await sessions.find('hash-1', NOW)).toEqual(session(1, NOW + 60_000));
      expect(await sessions.find('hash-2', NOW)).toEqual(session(2, NOW + 60_000));
      expect(await sessions.find('hash-1', NOW + 60_000)).toBeNull();
      expect(await sessions.find('hash-3', NOW)).toBeNull();
      await sessions.delete('hash-1');
      await sessions.delete('hash-1');
      expect(await sessions.find('hash-1', NOW)).toBeNull();
      expect(await sessions.find('hash-2', NOW)).not.toBeNull();
    });

    it('prunes expired sessions only, at most `limit` at a time', async () => {
      const sessions = store().dashboardSessions;
      if (!sessions) return;
      for (let n = 1; n <= 3; n++) await sessions.create(session(n, NOW - n));
      await sessions.create(session(9, NOW + 1));
      expect(await sessions.prune(NOW, 2)).toBe(2);
      expect(await sessions.prune(NOW, 2)).toBe(1);
      expect(await sessions.prune(NOW, 2)).toBe(0);
      expect(await sessions.find('hash-9', NOW)).not.toBeNull();
    });

    it('shares sessions between nodes on one database', async () => {
      const sessions = store().dashboardSessions;
      if (!sessions || !another) return;
      const second = await another(store());
      try {
        await sessions.create(session(4, NOW + 60_000));
        expect(await second.dashboardSessions?.find('hash-4', NOW)).toEqual(session(4, NOW + 60_000));
        await second.dashboardSessions?.delete('hash-4');
        expect(await sessions.find('hash-4', NOW)).toBeNull();
      } finally {
        await second.close();
      }
    });
  });
}
