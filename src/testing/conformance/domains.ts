import { vitest } from '../vitest.js';
import type { MailplaneStore, NewDomain } from '../../store/index.js';
import { newAccount, newSubAccount, unique } from './fixtures.js';

/** A valid new domain for `subAccountId`, with placeholder key material. */
export function sampleDomain(subAccountId: number, name: string): NewDomain {
  return {
    subAccountId,
    name,
    dkimSelector: 'mp1',
    dkimPublicKey: unique('pub'),
    dkimPrivateKeySealed: unique('sealed'),
    returnPathHost: `mp-bounces.${name}`,
    returnPathTarget: 'bounces.example.net',
    trackHost: `mp-track.${name}`,
    trackTarget: 'track.example.net',
    created: 1_733_844_681_120_384_511n,
  };
}

async function twoSubAccounts(store: MailplaneStore) {
  const account = await newAccount(store);
  return [await newSubAccount(store, account.id), await newSubAccount(store, account.id)] as const;
}

/** Sending domains: creation, uniqueness per sub-account, scoping, search, verification updates. */
export function domainStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('domains', () => {
    it('creates a domain unverified and reads it back by id and by name, timestamps exact', async () => {
      const [sub] = await twoSubAccounts(store());
      const input = sampleDomain(sub.id, 'example.com');
      const outcome = await store().domains.create(input);
      if (!outcome.ok) throw new Error('create failed');
      const created = outcome.value;
      expect(created).toMatchObject({
        ...input,
        dkimVerified: false,
        spfVerified: false,
        dmarcVerified: false,
        returnPathVerified: false,
        trackVerified: false,
        verified: false,
        dkimFailureReason: '',
        spfFailureReason: '',
        dmarcFailureReason: '',
        trackFailureReason: '',
        returnPathFailureReason: '',
        dnsProvider: '',
        domainRegisteredDate: '',
        lastCheckedAt: 0n,
        updated: input.created,
      });
      expect(created.created).toBe(1_733_844_681_120_384_511n);
      expect(await store().domains.get(sub.id, created.id)).toEqual(created);
      expect(await store().domains.findByName(sub.id, 'example.com')).toEqual(created);
      expect(await store().domains.findByName(sub.id, 'example.org')).toBeNull();
    });

    it('refuses a duplicate name in the same sub-account but allows it in another', async () => {
      const [a, b] = await twoSubAccounts(store());
      expect((await store().domains.create(sampleDomain(a.id, 'dup.com'))).ok).toBe(true);
      expect(await store().domains.create(sampleDomain(a.id, 'dup.com'))).toEqual({
        ok: false,
        reason: 'duplicate-name',
      });
      expect((await store().domains.create(sampleDomain(b.id, 'dup.com'))).ok).toBe(true);
      const other = await newSubAccount(store(), (await newAccount(store(), 'other')).id);
      expect((await store().domains.create(sampleDomain(other.id, 'dup.com'))).ok).toBe(true);
    });

    it('lets exactly one of 20 concurrent creates of the same name succeed', async () => {
      const [sub] = await twoSubAccounts(store());
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, () => store().domains.create(sampleDomain(sub.id, 'race.com'))),
      );
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(outcomes.filter((o) => !o.ok).every((o) => !o.ok && o.reason === 'duplicate-name')).toBe(true);
      expect(await store().domains.list(sub.id, { limit: 100, offset: 0 })).toHaveLength(1);
    });

    it('lists by id with limit, offset and a literal case-insensitive search', async () => {
      const [sub] = await twoSubAccounts(store());
      for (const name of ['alpha.com', 'beta.com', 'mail.alpha.org', 'a_b.com', 'axb.com', '100%.com', '1000.com']) {
        await store().domains.create(sampleDomain(sub.id, name));
      }
      const names = async (query: { limit: number; offset: number; search?: string }) =>
        (await store().domains.list(sub.id, query)).map((d) => d.name);
      expect(await names({ limit: 10, offset: 0 })).toEqual([
        'alpha.com',
        'beta.com',
        'mail.alpha.org',
        'a_b.com',
        'axb.com',
        '100%.com',
        '1000.com',
      ]);
      expect(await names({ limit: 2, offset: 1 })).toEqual(['beta.com', 'mail.alpha.org']);
      expect(await names({ limit: 10, offset: 0, search: 'ALPHA' })).toEqual(['alpha.com', 'mail.alpha.org']);
      expect(await names({ limit: 10, offset: 0, search: 'a_b' })).toEqual(['a_b.com']);
      expect(await names({ limit: 10, offset: 0, search: '0%' })).toEqual(['100%.com']);
      expect(await names({ limit: 10, offset: 0, search: '\\' })).toEqual([]);
    });

    it('scopes every read and write by sub-account', async () => {
      const [a, b] = await twoSubAccounts(store());
      const outcome = await store().domains.create(sampleDomain(a.id, 'mine.com'));
      if (!outcome.ok) throw new Error('create failed');
      const id = outcome.value.id;
      expect(await store().domains.get(b.id, id)).toBeNull();
      expect(await store().domains.findByName(b.id, 'mine.com')).toBeNull();
      expect(await store().domains.list(b.id, { limit: 10, offset: 0 })).toEqual([]);
      expect(await store().domains.list(b.id, { limit: 10, offset: 0, search: 'mine' })).toEqual([]);
      expect(
        await store().domains.updateVerification(b.id, id, { dkimVerified: true, verified: true, updated: 9n }),
      ).toBeNull();
      expect(await store().domains.delete(b.id, id)).toBe(false);
      expect(await store().domains.get(a.id, id)).toEqual(outcome.value);
    });

    it('updates only the verification fields given', async () => {
      const [sub] = await twoSubAccounts(store());
      const outcome = await store().domains.create(sampleDomain(sub.id, 'check.com'));
      if (!outcome.ok) throw new Error('create failed');
      const id = outcome.value.id;
      const first = await store().domains.updateVerification(sub.id, id, {
        dkimVerified: true,
        verified: true,
        trackFailureReason: 'no CNAME at mp-track.check.com',
        dnsProvider: 'Cloudflare',
        domainRegisteredDate: '1995-08-14',
        lastCheckedAt: 1_733_844_681_120_384_999n,
        updated: 1_733_844_681_120_385_000n,
      });
      expect(first).toMatchObject({
        dkimVerified: true,
        verified: true,
        spfVerified: false,
        trackVerified: false,
        trackFailureReason: 'no CNAME at mp-track.check.com',
        dkimFailureReason: '',
        dnsProvider: 'Cloudflare',
        domainRegisteredDate: '1995-08-14',
        lastCheckedAt: 1_733_844_681_120_384_999n,
        updated: 1_733_844_681_120_385_000n,
        created: outcome.value.created,
        dkimPrivateKeySealed: outcome.value.dkimPrivateKeySealed,
      });
      const second = await store().domains.updateVerification(sub.id, id, {
        trackVerified: true,
        trackFailureReason: '',
        updated: 2n,
      });
      expect(second).toMatchObject({
        dkimVerified: true,
        trackVerified: true,
        trackFailureReason: '',
        dnsProvider: 'Cloudflare',
      });
      expect(await store().domains.get(sub.id, id)).toEqual(second);
      expect(await store().domains.findByName(sub.id, 'check.com')).toEqual(second);
      expect(await store().domains.list(sub.id, { limit: 10, offset: 0 })).toEqual([second]);
      expect(await store().domains.updateVerification(sub.id, 999_999, { verified: true, updated: 3n })).toBeNull();
    });

    it('deletes a domain, after which its name can be added again', async () => {
      const [sub] = await twoSubAccounts(store());
      const outcome = await store().domains.create(sampleDomain(sub.id, 'gone.com'));
      if (!outcome.ok) throw new Error('create failed');
      expect(await store().domains.delete(sub.id, outcome.value.id)).toBe(true);
      expect(await store().domains.get(sub.id, outcome.value.id)).toBeNull();
      expect(await store().domains.findByName(sub.id, 'gone.com')).toBeNull();
      expect(await store().domains.list(sub.id, { limit: 10, offset: 0 })).toEqual([]);
      expect(await store().domains.delete(sub.id, outcome.value.id)).toBe(false);
      const again = await store().domains.create(sampleDomain(sub.id, 'gone.com'));
      expect(again.ok && again.value.id).not.toBe(outcome.value.id);
    });

    it('removes the domains of a deleted sub-account', async () => {
      const account = await newAccount(store());
      const sub = await newSubAccount(store(), account.id);
      const outcome = await store().domains.create(sampleDomain(sub.id, 'orphan.com'));
      if (!outcome.ok) throw new Error('create failed');
      expect(await store().subAccounts.delete(account.id, sub.id)).toBe(true);
      expect(await store().domains.get(sub.id, outcome.value.id)).toBeNull();
      expect(await store().domains.findByName(sub.id, 'orphan.com')).toBeNull();
    });
  });
}
