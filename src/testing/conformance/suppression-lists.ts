import { vitest } from '../vitest.js';
import type { MailplaneStore, NewSuppression } from '../../store/index.js';
import { newAccount, newSubAccount } from './fixtures.js';

const T0 = 1_733_844_681_120_384_511n;
const HOUR = 3_600_000_000_000n;

const entry = (email: string, expires: bigint | null = null, created = T0): NewSuppression => ({
  email,
  type: 0,
  created,
  expires,
});

/** Suppression lists at scale: domain-wide entries, expiry, the account's list, the export cursor, expiry cleanup. */
export function suppressionListConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  const page = { limit: 100, offset: 0 };
  async function accountWithTwoSubAccounts() {
    const account = await newAccount(store());
    return {
      account,
      subs: [await newSubAccount(store(), account.id), await newSubAccount(store(), account.id)] as const,
    };
  }

  describe('suppression lists', () => {
    it('suppresses every address of a domain for `*@domain`, not its subdomains nor other domains', async () => {
      const { subs } = await accountWithTwoSubAccounts();
      await store().suppressions.add(subs[0].id, [entry('*@Blocked.example')]);
      const among = await store().suppressions.suppressedAmong(
        subs[0].id,
        [
          'a@blocked.example',
          'B@BLOCKED.EXAMPLE',
          'c@sub.blocked.example',
          'd@open.example',
          'blocked.example@x.example',
        ],
        T0,
      );
      expect(among).toEqual(['a@blocked.example', 'B@BLOCKED.EXAMPLE']);
      expect(await store().suppressions.isSuppressed(subs[0].id, 'z@blocked.example', T0)).toBe(true);
      expect(await store().suppressions.isSuppressed(subs[1].id, 'z@blocked.example', T0)).toBe(false);
      expect(await store().suppressions.find(subs[0].id, '*@blocked.example')).toMatchObject({
        email: '*@Blocked.example',
      });
    });

    it('stops suppressing at the expiry, and a new add replaces an expired record only', async () => {
      const { subs } = await accountWithTwoSubAccounts();
      const [added] = await store().suppressions.add(subs[0].id, [entry('temp@example.com', T0 + HOUR)]);
      expect(added).toMatchObject({ email: 'temp@example.com', expires: T0 + HOUR });
      expect(await store().suppressions.isSuppressed(subs[0].id, 'temp@example.com', T0 + HOUR - 1n)).toBe(true);
      expect(await store().suppressions.isSuppressed(subs[0].id, 'temp@example.com', T0 + HOUR)).toBe(false);
      // Still live at its `created`: the add changes nothing.
      const [kept] = await store().suppressions.add(subs[0].id, [entry('TEMP@example.com', null, T0 + 1n)]);
      expect(kept).toEqual(added);
      // Expired at its `created`: the new entry takes its place, without an expiry.
      const [renewed] = await store().suppressions.add(subs[0].id, [entry('Temp@example.com', null, T0 + 2n * HOUR)]);
      expect(renewed).toMatchObject({ email: 'Temp@example.com', created: T0 + 2n * HOUR, expires: null });
      expect(await store().suppressions.list(subs[0].id, page)).toEqual([renewed]);
      expect(await store().suppressions.isSuppressed(subs[0].id, 'temp@example.com', T0 + 100n * HOUR)).toBe(true);
    });

    it('keeps an account list that suppresses for every sub-account of the account, and only them', async () => {
      const { account, subs } = await accountWithTwoSubAccounts();
      const other = await accountWithTwoSubAccounts();
      const list = { accountId: account.id };
      const added = await store().suppressions.add(list, [entry('everyone@example.com'), entry('*@spamtrap.example')]);
      expect(added.map((r) => [r.email, r.accountId, r.subAccountId])).toEqual([
        ['everyone@example.com', account.id, null],
        ['*@spamtrap.example', account.id, null],
      ]);
      for (const sub of subs) {
        expect(
          await store().suppressions.suppressedAmong(
            sub.id,
            ['everyone@example.com', 'x@spamtrap.example', 'ok@example.com'],
            T0,
          ),
        ).toEqual(['everyone@example.com', 'x@spamtrap.example']);
      }
      expect(await store().suppressions.suppressedAmong(other.subs[0].id, ['everyone@example.com'], T0)).toEqual([]);
      // The lists are separate: the sub-account's own list does not show the account's entries.
      expect(await store().suppressions.list(subs[0].id, page)).toEqual([]);
      expect(await store().suppressions.list(list, page)).toEqual([...added].sort((a, b) => a.id - b.id));
      expect(await store().suppressions.find(list, 'EVERYONE@example.com')).toEqual(added[0]);
      expect(await store().suppressions.find(subs[0].id, 'everyone@example.com')).toBeNull();
      expect(await store().suppressions.remove(subs[0].id, ['everyone@example.com'])).toBe(0);
      expect(await store().suppressions.remove(list, ['everyone@example.com'])).toBe(1);
      expect(await store().suppressions.isSuppressed(subs[1].id, 'everyone@example.com', T0)).toBe(false);
      expect(await store().suppressions.add({ accountId: 2_000_000_000 }, [entry('none@example.com')])).toEqual([]);
    });

    it('pages by id after a cursor, so an export reads each record once', async () => {
      const { subs } = await accountWithTwoSubAccounts();
      await store().suppressions.add(
        subs[0].id,
        Array.from({ length: 25 }, (_, i) => entry(`p${String(i).padStart(2, '0')}@example.com`)),
      );
      const seen: string[] = [];
      let afterId: number | undefined;
      for (;;) {
        const rows = await store().suppressions.list(subs[0].id, { limit: 10, offset: 0, afterId });
        if (rows.length === 0) break;
        seen.push(...rows.map((r) => r.email));
        afterId = rows.at(-1)!.id;
      }
      expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => `p${String(i).padStart(2, '0')}@example.com`));
    });

    it('deletes expired records of every list, at most `limit` at a time, and nothing else', async () => {
      const { account, subs } = await accountWithTwoSubAccounts();
      await store().suppressions.add(subs[0].id, [
        entry('gone1@example.com', T0),
        entry('gone2@example.com', T0 + 1n),
        entry('later@example.com', T0 + HOUR),
        entry('forever@example.com'),
      ]);
      await store().suppressions.add({ accountId: account.id }, [entry('gone3@example.com', T0)]);
      let deleted = 0;
      for (let n = 2; n === 2; deleted += n) n = await store().suppressions.deleteExpired(T0 + 1n, 2);
      expect(deleted).toBeGreaterThanOrEqual(3);
      expect((await store().suppressions.list(subs[0].id, page)).map((r) => r.email)).toEqual([
        'forever@example.com',
        'later@example.com',
      ]);
      expect(await store().suppressions.list({ accountId: account.id }, page)).toEqual([]);
    });
  });
}
