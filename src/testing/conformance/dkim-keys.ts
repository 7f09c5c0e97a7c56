import { vitest } from '../vitest.js';
import type { MailplaneStore, PendingDkimKey } from '../../store/index.js';
import { sampleDomain } from './domains.js';
import { newAccount, newSubAccount, unique } from './fixtures.js';

/**
 * DKIM key rotation in the domain store: a new domain has no pending or previous key;
 * `updateDkimKeys` changes only what it is given, only when the pending selector matches (so of
 * concurrent rotations exactly one starts, and of concurrent promotions exactly one applies), and
 * only within the sub-account.
 */
export function dkimKeysConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  const pendingKey = (selector: string): PendingDkimKey => ({
    selector,
    publicKey: unique('pub'),
    privateKeySealed: unique('sealed'),
    created: 1_800_000_000_000_000_001n,
    failureReason: '',
  });
  const setUp = async () => {
    const account = await newAccount(store());
    const [sub, other] = [await newSubAccount(store(), account.id), await newSubAccount(store(), account.id)];
    const outcome = await store().domains.create(sampleDomain(sub.id, `${unique('rot')}.com`));
    if (!outcome.ok) throw new Error('create failed');
    return { sub, other, domain: outcome.value };
  };

  describe('domain DKIM keys', () => {
    it('starts a rotation once under concurrency, and reads the pending key back exactly', async () => {
      const { sub, domain } = await setUp();
      expect(domain).toMatchObject({ dkimPending: null, dkimPrevious: null, dkimRotatedAt: 0n });
      const keys = Array.from({ length: 8 }, (_, i) => pendingKey(`mp1-${i}`));
      const results = await Promise.all(
        keys.map((pending) => store().domains.updateDkimKeys(sub.id, domain.id, '', { pending, updated: 5n })),
      );
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      const read = await store().domains.get(sub.id, domain.id);
      expect(read).toEqual(winners[0]);
      expect(read!.dkimPending).toEqual(keys[results.findIndex((r) => r !== null)]);
      expect(read).toMatchObject({ dkimSelector: 'mp1', dkimPublicKey: domain.dkimPublicKey, updated: 5n });
    });

    it('promotes the pending key when it is still the pending one, keeping the previous key and other fields', async () => {
      const { sub, other, domain } = await setUp();
      const pending = pendingKey('mp1-new');
      await store().domains.updateDkimKeys(sub.id, domain.id, '', { pending, updated: 2n });
      const promote = {
        current: {
          selector: pending.selector,
          publicKey: pending.publicKey,
          privateKeySealed: pending.privateKeySealed,
        },
        pending: null,
        previous: { selector: 'mp1', publicKey: domain.dkimPublicKey, retireAt: 9_000_000_000_000_000_000n },
        rotatedAt: 3n,
        dkimVerified: true,
        verified: true,
        updated: 3n,
      };
      expect(await store().domains.updateDkimKeys(other.id, domain.id, 'mp1-new', promote)).toBeNull();
      expect(await store().domains.updateDkimKeys(sub.id, domain.id, 'mp1-other', promote)).toBeNull();
      const promoted = await store().domains.updateDkimKeys(sub.id, domain.id, 'mp1-new', promote);
      expect(promoted).toMatchObject({
        dkimSelector: 'mp1-new',
        dkimPublicKey: pending.publicKey,
        dkimPrivateKeySealed: pending.privateKeySealed,
        dkimPending: null,
        dkimPrevious: { selector: 'mp1', publicKey: domain.dkimPublicKey, retireAt: 9_000_000_000_000_000_000n },
        dkimRotatedAt: 3n,
        dkimVerified: true,
        verified: true,
        name: domain.name,
        returnPathHost: domain.returnPathHost,
      });
      // Already promoted: a second promotion (another node) finds no such pending key.
      expect(await store().domains.updateDkimKeys(sub.id, domain.id, 'mp1-new', promote)).toBeNull();
      const retired = await store().domains.updateDkimKeys(sub.id, domain.id, '', { previous: null, updated: 4n });
      expect(retired).toMatchObject({ dkimPrevious: null, dkimSelector: 'mp1-new', updated: 4n });
      expect(await store().domains.get(sub.id, domain.id)).toEqual(retired);
    });
  });
}
