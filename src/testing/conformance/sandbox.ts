import type { MailplaneStore, NewSandboxMessage } from '../../store/index.js';
import { sampleDomain } from './domains.js';
import { newAccount, newSubAccount } from './fixtures.js';
import { vitest } from '../vitest.js';

const captured = (accountId: number, n: number): NewSandboxMessage => ({
  accountId,
  messageId: `m-${n}`,
  mailFrom: `b+m-${n}@mp-bounces.acme.test`,
  rcptTo: [`to-${n}@example.com`],
  subject: `Subject ${n}`,
  raw: Buffer.from(`Subject: Subject ${n}\r\n\r\nbody \u00e9 ${n}\r\n`),
  received: 1_700_000_000_000_000_000n + BigInt(n),
});

/** The {@link SandboxStore} contract: bounded captures per account, newest first, account-scoped reads. */
export function sandboxStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('sandbox messages', () => {
    it('keeps the newest `keep` messages of an account, lists them newest first and reads one back exactly', async () => {
      const account = await newAccount(store());
      const other = await newAccount(store(), 'other');
      const otherMessage = await store().sandbox.capture(captured(other.id, 0), 2);
      const ids: number[] = [];
      for (let n = 1; n <= 5; n++) ids.push((await store().sandbox.capture(captured(account.id, n), 3)).id);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      const listed = await store().sandbox.list(account.id, { limit: 10, offset: 0 });
      expect(listed.map((m) => m.subject)).toEqual(['Subject 5', 'Subject 4', 'Subject 3']);
      expect(listed[0]).toEqual({ ...captured(account.id, 5), raw: undefined, id: ids[4] });
      expect('raw' in listed[0]!).toBe(false);
      expect((await store().sandbox.list(account.id, { limit: 1, offset: 1 })).map((m) => m.id)).toEqual([ids[3]]);
      const one = await store().sandbox.get(account.id, ids[4]!);
      expect(one?.raw.equals(captured(account.id, 5).raw)).toBe(true);
      expect(one?.rcptTo).toEqual(['to-5@example.com']);
      expect(await store().sandbox.get(account.id, ids[0]!)).toBeNull();
      expect(await store().sandbox.get(account.id, otherMessage.id)).toBeNull();
      expect((await store().sandbox.list(other.id, { limit: 10, offset: 0 })).map((m) => m.id)).toEqual([
        otherMessage.id,
      ]);
    });

    it('finds the domains of one name across sub-accounts', async () => {
      const account = await newAccount(store());
      const a = await newSubAccount(store(), account.id);
      const b = await newSubAccount(store(), account.id);
      await store().domains.create(sampleDomain(a.id, 'acme.test'));
      await store().domains.create(sampleDomain(b.id, 'acme.test'));
      await store().domains.create(sampleDomain(b.id, 'other.test'));
      const found = await store().sandbox.domainsNamed('acme.test');
      expect(found.map((d) => d.subAccountId)).toEqual([a.id, b.id]);
      expect(await store().sandbox.domainsNamed('nothing.test')).toEqual([]);
    });
  });
}
