/**
 * Migration 0016-retention-override on a store written by an earlier version: existing
 * sub-accounts keep the instance's retention (`retentionDays` null) and can be given their own,
 * and the status, pool and event-type activity indexes exist.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { kyselyStore, migrateToLatest } from '../../adapters/storage/kysely/index.js';
import { storeKinds } from '../support/databases.js';
import { withDatabaseAt } from '../support/migration-db.js';

describe.each(storeKinds)('migration 0016-retention-override on %s', (kind) => {
  it('adds a null retentionDays to existing sub-accounts and the activity filter indexes', async () => {
    await withDatabaseAt(kind, '0015-activity', async (db, dialect) => {
      const store = kyselyStore({ db, dialect });
      const account = await store.accounts.create({
        name: 'acct',
        apiKeyHash: 'akh',
        apiKeySealed: 'aks',
        created: 1n,
      });
      await sql`insert into sub_accounts (account_id, name, name_key, company_name, type, is_plus, blocked, blocked_at, block_reason, hb_exempt,
          generate_weekly_report, api_key_hash, api_key_sealed, default_ip_pool_id, created, updated)
        values (${account.id}, 'Old', 'old', '', 1, 0, 0, 0, '', 0, 0, 'h', 's', null, 1, 1)`.execute(db);

      await migrateToLatest(db, dialect);
      const [old] = await store.subAccounts.list(account.id, { limit: 10, offset: 0 });
      expect(old).toMatchObject({ name: 'Old', retentionDays: null });
      const updated = await store.subAccounts.update(account.id, old!.id, { retentionDays: 400, updated: 2n });
      expect(updated.ok && updated.value.retentionDays).toBe(400);
      expect(await store.subAccounts.listRetentionOverrides()).toEqual([
        { accountId: account.id, subAccountId: old!.id, retentionDays: 400 },
      ]);

      const indexes =
        dialect === 'sqlite'
          ? (await sql<{ name: string }>`select name from sqlite_master where type = 'index'`.execute(db)).rows
          : (
              await sql<{
                name: string;
              }>`select indexname as name from pg_indexes where schemaname = current_schema()`.execute(db)
            ).rows;
      expect(indexes.map((i) => i.name)).toEqual(
        expect.arrayContaining(['messages_activity_status', 'messages_activity_pool', 'events_activity_type']),
      );
    });
  });
});
