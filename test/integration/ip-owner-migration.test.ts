/**
 * Migration 0010-ip-owner on a store written by an earlier version, where two accounts could
 * register one address: it is refused with the address named (which account keeps it is the
 * operator's call), and applies once the address is released; afterwards the database itself
 * refuses a second owner.
 */
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../adapters/storage/kysely/index.js';
import { storeKinds } from '../support/databases.js';
import { withDatabaseAt } from '../support/migration-db.js';

describe.each(storeKinds)('migration 0010-ip-owner on %s', (kind) => {
  it('refuses a store where two accounts hold one address, naming it, and applies once it is released', async () => {
    await withDatabaseAt(kind, '0009-ip-warmup', async (db, dialect) => {
      const account = async (name: string) =>
        (
          await db
            .insertInto('accounts')
            .values({ name, api_key_hash: name, api_key_sealed: name, created: 1n } as never)
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id;
      const ip = (accountId: number, address: string) =>
        db
          .insertInto('ips')
          .values({ account_id: accountId, public_ip: address, type: 1, state: 0, created: 1n, updated: 1n } as never)
          .returning('id')
          .executeTakeFirstOrThrow();
      const [a, b] = [Number(await account('a')), Number(await account('b'))];
      await ip(a, '127.0.0.2');
      const shared = await ip(b, '127.0.0.2');
      await ip(b, '127.0.0.3');

      const refused = await migrateToLatest(db, dialect).catch((error: Error) => error);
      expect(refused).toBeInstanceOf(Error);
      expect((refused as Error).message).toBe('mailplane migration 0010-ip-owner failed');
      expect(((refused as Error).cause as Error).message).toContain('127.0.0.2 (2 accounts)');

      await db.deleteFrom('ips').where('id', '=', shared.id).execute();
      await migrateToLatest(db, dialect);
      await expect(ip(b, '127.0.0.2')).rejects.toThrow(/unique/i);
    });
  });
});
