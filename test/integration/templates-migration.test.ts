/**
 * Migration 0017-templates on a store written by an earlier version: it applies over existing
 * sub-accounts, and its tables hold templates with the uniqueness and cascades the store relies on.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { kyselyStore, migrateToLatest } from '../../adapters/storage/kysely/index.js';
import { storeKinds } from '../support/databases.js';
import { withDatabaseAt } from '../support/migration-db.js';

describe.each(storeKinds)('migration 0017-templates on %s', (kind) => {
  it('adds the template tables to a database with sub-accounts, unique names per sub-account and cascades on delete', async () => {
    await withDatabaseAt(kind, '0015-activity', async (db, dialect) => {
      const store = kyselyStore({ db, dialect });
      const account = await store.accounts.create({ name: 'a', apiKeyHash: 'h', apiKeySealed: 's', created: 1n });
      const smtpAuth = { username: 'u', passwordHash: 'ph', passwordSealed: 'ps' };
      const sub = await store.subAccounts.create({
        accountId: account.id,
        name: 'before',
        companyName: '',
        type: 1,
        apiKeyHash: 'k',
        apiKeySealed: 'ks',
        created: 1n,
        smtpAuth,
      });
      if (!sub.ok) throw new Error(sub.reason);

      await migrateToLatest(db, dialect);
      const tables = (await db.introspection.getTables()).map((t) => t.name);
      expect(tables).toEqual(expect.arrayContaining(['templates', 'template_versions']));
      const created = await store.templates.create({
        subAccountId: sub.value.id,
        name: 'Welcome',
        content: { subject: 's', textBody: 't' },
        created: 2n,
      });
      expect(created.ok).toBe(true);
      // The unique index holds even for a write that bypasses the store's own check.
      const duplicate = db
        .insertInto('templates')
        .values({
          sub_account_id: sub.value.id,
          name: 'WELCOME',
          name_key: 'welcome',
          active_version: 1,
          latest_version: 1,
          created: 3n,
          updated: 3n,
        })
        .execute();
      await expect(duplicate).rejects.toThrow();
      // Deleting the sub-account through SQL removes its templates and their versions (the cascade).
      await db.deleteFrom('smtp_auths').execute();
      await db.deleteFrom('sub_accounts').where('id', '=', sub.value.id).execute();
      const left = await sql<{
        n: number | bigint | string;
      }>`select (select count(*) from templates) + (select count(*) from template_versions) as n`.execute(db);
      expect(Number(left.rows[0]!.n)).toBe(0);
    });
  });
});
