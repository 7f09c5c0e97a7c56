import { vitest } from '../vitest.js';
import type { MailplaneStore, NewSuppression, SuppressionType } from '../../store/index.js';
import { newAccount, newSubAccount } from './fixtures.js';

const T0 = 1_733_844_681_120_384_511n;
const DAY = 86_400_000_000_000n;

const entry = (email: string, type: SuppressionType = 0, created = T0, smtpError?: string): NewSuppression =>
  smtpError === undefined ? { email, type, created } : { email, type, created, smtpError };

/** Suppressions: idempotent and race-safe adds, case-insensitive identity, scoping, filters, lookups. */
export function suppressionStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  async function twoSubAccounts() {
    const account = await newAccount(store());
    return [await newSubAccount(store(), account.id), await newSubAccount(store(), account.id)] as const;
  }
  const page = { limit: 100, offset: 0 };

  describe('suppressions', () => {
    it('adds addresses and reads them back with type, smtpError and exact created', async () => {
      const [sub] = await twoSubAccounts();
      const added = await store().suppressions.add(sub.id, [
        entry('Bounced@Example.com', 2, T0, '550 5.1.1 user unknown'),
        entry('manual@example.com', 0, T0 + 1n),
      ]);
      expect(added).toEqual([
        {
          id: expect.any(Number),
          subAccountId: sub.id,
          accountId: null,
          email: 'Bounced@Example.com',
          type: 2,
          smtpError: '550 5.1.1 user unknown',
          created: T0,
          expires: null,
        },
        {
          id: expect.any(Number),
          subAccountId: sub.id,
          accountId: null,
          email: 'manual@example.com',
          type: 0,
          smtpError: '',
          created: T0 + 1n,
          expires: null,
        },
      ]);
      expect(await store().suppressions.list(sub.id, page)).toEqual(added);
      expect(await store().suppressions.find(sub.id, 'bounced@example.COM')).toEqual(added[0]);
      expect(await store().suppressions.find(sub.id, 'nobody@example.com')).toBeNull();
      expect(await store().suppressions.add(sub.id, [])).toEqual([]);
    });

    it('is idempotent: a second add of an address, in any case and of any type, changes nothing', async () => {
      const [sub] = await twoSubAccounts();
      const [first] = await store().suppressions.add(sub.id, [entry('Dup@Example.com', 1)]);
      const again = await store().suppressions.add(sub.id, [
        entry('dup@example.com', 2, T0 + DAY, '550 gone'),
        entry('DUP@EXAMPLE.COM', 3),
        entry('new@example.com', 0),
      ]);
      expect(again[0]).toEqual(first);
      expect(again.map((r) => r.email)).toEqual(['Dup@Example.com', 'new@example.com']);
      const all = await store().suppressions.list(sub.id, page);
      expect(all).toHaveLength(2);
      expect(all[0]).toEqual(first);
    });

    // The contract says `list` orders by id; which ids one `add` gives its new addresses it does not
    // say. The Kysely store inserts them in address order (one lock order for concurrent adds), and
    // the API's list shows that order, so every store MUST do the same.
    it('gives the new addresses of one add ids in address order, answering in input order', async () => {
      const [sub] = await twoSubAccounts();
      await store().suppressions.add(sub.id, [entry('m@example.com')]);
      const added = await store().suppressions.add(sub.id, [
        entry('zed@example.com'),
        entry('M@example.com'),
        entry('Bob@example.com'),
      ]);
      expect(added.map((r) => r.email)).toEqual(['zed@example.com', 'm@example.com', 'Bob@example.com']);
      expect((await store().suppressions.list(sub.id, page)).map((r) => r.email)).toEqual([
        'm@example.com',
        'Bob@example.com',
        'zed@example.com',
      ]);
    });

    it('keeps the first entry of an address listed twice in one add', async () => {
      const [sub] = await twoSubAccounts();
      const added = await store().suppressions.add(sub.id, [
        entry('twice@example.com', 2),
        entry('TWICE@example.com', 0),
      ]);
      expect(added).toHaveLength(1);
      expect(added[0]).toMatchObject({ email: 'twice@example.com', type: 2 });
    });

    it('leaves exactly one record after 20 concurrent adds of the same address', async () => {
      const [sub] = await twoSubAccounts();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store().suppressions.add(sub.id, [
            entry(i % 2 === 0 ? 'race@example.com' : 'RACE@example.com', 0),
            entry(`other${i}@example.com`),
          ]),
        ),
      );
      const ids = new Set(results.map((r) => r[0]!.id));
      expect(ids.size).toBe(1);
      const rows = await store().suppressions.list(sub.id, { ...page, search: 'race@' });
      expect(rows).toHaveLength(1);
      expect(await store().suppressions.list(sub.id, page)).toHaveLength(21);
    });

    it('compares addresses case-insensitively in every lookup and in removal', async () => {
      const [sub] = await twoSubAccounts();
      await store().suppressions.add(sub.id, [entry('Gilfoyle@PiedPiper.com'), entry('jared@piedpiper.com')]);
      expect(await store().suppressions.isSuppressed(sub.id, 'gilfoyle@piedpiper.com', T0)).toBe(true);
      expect(await store().suppressions.isSuppressed(sub.id, 'GILFOYLE@PIEDPIPER.COM', T0)).toBe(true);
      expect(await store().suppressions.isSuppressed(sub.id, 'dinesh@piedpiper.com', T0)).toBe(false);
      expect(await store().suppressions.remove(sub.id, ['GILFOYLE@piedpiper.com', 'nobody@example.com'])).toBe(1);
      expect(await store().suppressions.isSuppressed(sub.id, 'Gilfoyle@PiedPiper.com', T0)).toBe(false);
      expect(await store().suppressions.remove(sub.id, ['gilfoyle@piedpiper.com'])).toBe(0);
      expect(await store().suppressions.remove(sub.id, [])).toBe(0);
      expect((await store().suppressions.list(sub.id, page)).map((r) => r.email)).toEqual(['jared@piedpiper.com']);
    });

    it('answers suppressedAmong with the suppressed subset, spelled as given, in one call', async () => {
      const [sub] = await twoSubAccounts();
      await store().suppressions.add(sub.id, [entry('a@example.com'), entry('C@example.com')]);
      const recipients = Array.from({ length: 1000 }, (_, i) => `r${i}@example.com`);
      recipients.splice(10, 0, 'A@EXAMPLE.com');
      recipients.splice(500, 0, 'c@example.com');
      recipients.push('A@EXAMPLE.com');
      expect(await store().suppressions.suppressedAmong(sub.id, recipients, T0)).toEqual([
        'A@EXAMPLE.com',
        'c@example.com',
      ]);
      expect(await store().suppressions.suppressedAmong(sub.id, [], T0)).toEqual([]);
      expect(await store().suppressions.suppressedAmong(sub.id, ['r1@example.com'], T0)).toEqual([]);
    });

    it('scopes every read and write by sub-account', async () => {
      const [mine, theirs] = await twoSubAccounts();
      await store().suppressions.add(mine.id, [entry('shared@example.com', 1)]);
      expect(await store().suppressions.isSuppressed(theirs.id, 'shared@example.com', T0)).toBe(false);
      expect(await store().suppressions.suppressedAmong(theirs.id, ['shared@example.com'], T0)).toEqual([]);
      expect(await store().suppressions.find(theirs.id, 'shared@example.com')).toBeNull();
      expect(await store().suppressions.list(theirs.id, { ...page, search: 'shared' })).toEqual([]);
      expect(await store().suppressions.remove(theirs.id, ['shared@example.com'])).toBe(0);
      // The other sub-account gets its own record of the same address, with its own type.
      const [own] = await store().suppressions.add(theirs.id, [entry('shared@example.com', 3)]);
      expect(own).toMatchObject({ subAccountId: theirs.id, type: 3 });
      expect(await store().suppressions.find(mine.id, 'shared@example.com')).toMatchObject({
        subAccountId: mine.id,
        type: 1,
      });
    });

    it('lists by id with created range, type, literal search, limit and offset', async () => {
      const [sub] = await twoSubAccounts();
      await store().suppressions.add(sub.id, [entry('day0-a@example.com', 0, T0)]);
      await store().suppressions.add(sub.id, [entry('day1_b@example.com', 2, T0 + DAY)]);
      await store().suppressions.add(sub.id, [entry('day2%c@example.com', 1, T0 + 2n * DAY)]);
      await store().suppressions.add(sub.id, [entry('day2-d@other.org', 2, T0 + 2n * DAY + 1n)]);
      const emails = async (filter: Partial<Parameters<MailplaneStore['suppressions']['list']>[1]>) =>
        (await store().suppressions.list(sub.id, { ...page, ...filter })).map((r) => r.email.slice(0, 6));
      expect(await emails({})).toEqual(['day0-a', 'day1_b', 'day2%c', 'day2-d']);
      expect(await emails({ createdFrom: T0 + DAY })).toEqual(['day1_b', 'day2%c', 'day2-d']);
      expect(await emails({ createdBefore: T0 + 2n * DAY })).toEqual(['day0-a', 'day1_b']);
      expect(await emails({ createdFrom: T0 + DAY, createdBefore: T0 + DAY + 1n })).toEqual(['day1_b']);
      expect(await emails({ type: 2 })).toEqual(['day1_b', 'day2-d']);
      expect(await emails({ search: 'OTHER.ORG' })).toEqual(['day2-d']);
      expect(await emails({ search: '%' })).toEqual(['day2%c']);
      expect(await emails({ search: '_' })).toEqual(['day1_b']);
      expect(await emails({ type: 2, createdFrom: T0 + 2n * DAY })).toEqual(['day2-d']);
      expect(await emails({ limit: 2, offset: 1 })).toEqual(['day1_b', 'day2%c']);
    });

    it('adds and removes more addresses in one call than one statement can bind', async () => {
      const [sub] = await twoSubAccounts();
      const emails = Array.from({ length: 10_000 }, (_, i) => `bulk${i}@example.com`);
      const added = await store().suppressions.add(
        sub.id,
        emails.map((email) => entry(email, 0)),
      );
      expect(added).toHaveLength(10_000);
      expect(added[9_999]!.email).toBe('bulk9999@example.com');
      expect(await store().suppressions.suppressedAmong(sub.id, emails, T0)).toHaveLength(10_000);
      expect(await store().suppressions.remove(sub.id, emails)).toBe(10_000);
      expect(await store().suppressions.list(sub.id, page)).toEqual([]);
    });

    it('takes part in a transaction: an add rolled back leaves nothing', async () => {
      const [sub] = await twoSubAccounts();
      await expect(
        store().transaction(async (tx) => {
          await tx.suppressions.add(sub.id, [entry('rolled@example.com')]);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(await store().suppressions.isSuppressed(sub.id, 'rolled@example.com', T0)).toBe(false);
    });

    it('adds nothing, and does not throw, for a sub-account that was deleted, also inside a transaction', async () => {
      const [sub, other] = await twoSubAccounts();
      expect(await store().subAccounts.delete(sub.accountId, sub.id)).toBe(true);
      expect(await store().suppressions.add(sub.id, [entry('late@example.com', 1)])).toEqual([]);
      // In a transaction the rest of its work still commits (a failed statement would abort it on PostgreSQL).
      await store().transaction(async (tx) => {
        expect(await tx.suppressions.add(sub.id, [entry('late@example.com', 2)])).toEqual([]);
        await tx.suppressions.add(other.id, [entry('kept@example.com')]);
      });
      expect(await store().suppressions.isSuppressed(other.id, 'kept@example.com', T0)).toBe(true);
      expect(await store().suppressions.list(sub.id, page)).toEqual([]);
    });
  });
}
