import type { Selectable } from 'kysely';
import type { NewSuppression, SuppressionRecord, SuppressionStore, SuppressionType } from '../../../src/store/index.js';
import { atomically, type KyselyStoreContext } from './context.js';
import { containsText } from './dialect.js';
import { toBigint, toNumber } from './rows.js';
import type { SuppressionsTable } from './tables/suppressions.js';

/*
 * Bound parameters per statement stay well under SQLite's 32,766 and PostgreSQL's 65,535:
 * an insert binds 6 values per row, a lookup 1 per address.
 */
const INSERT_CHUNK = 1000;
const LOOKUP_CHUNK = 5000;

/** The case-insensitive identity of an address. */
const emailKey = (email: string) => email.toLowerCase();

function toSuppression(row: Selectable<SuppressionsTable>): SuppressionRecord {
  return {
    id: toNumber(row.id),
    subAccountId: toNumber(row.sub_account_id),
    email: row.email,
    type: toNumber(row.type) as SuppressionType,
    smtpError: row.smtp_error,
    created: toBigint(row.created),
  };
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** {@link SuppressionStore} on Kysely. */
export function kyselySuppressionStore(ctx: KyselyStoreContext): SuppressionStore {
  const { db } = ctx;
  return {
    async add(subAccountId, entries) {
      // The first entry of an address wins, as the contract says.
      const byKey = new Map<string, NewSuppression>();
      for (const entry of entries) {
        const key = emailKey(entry.email);
        if (!byKey.has(key)) byKey.set(key, entry);
      }
      if (byKey.size === 0) return [];
      // Inserting in key order gives concurrent PostgreSQL transactions one lock order, so two
      // overlapping batches wait for each other instead of deadlocking.
      const keys = [...byKey.keys()].sort();
      const stored = await atomically(ctx, async (trx) => {
        const found = new Map<string, SuppressionRecord>();
        // The sub-account may have been deleted (an unsubscribe link or a bounce of one of its
        // messages arrives later): then there is nothing to add, and the insert would only fail
        // its foreign key. On PostgreSQL the row is locked FOR KEY SHARE (what the foreign key
        // check itself takes), so a concurrent delete waits for this transaction and then removes
        // what it added, instead of failing it halfway.
        let parent = trx.selectFrom('sub_accounts').select('id').where('id', '=', subAccountId);
        if (ctx.dialect === 'postgres') parent = parent.forKeyShare();
        if (!(await parent.executeTakeFirst())) return found;
        for (const chunk of chunks(keys, INSERT_CHUNK)) {
          // ON CONFLICT DO NOTHING is the idempotent, race-free upsert: a concurrent insert of the
          // same address waits on the unique index and then does nothing.
          await trx
            .insertInto('suppressions')
            .values(
              chunk.map((key) => {
                const entry = byKey.get(key)!;
                return {
                  sub_account_id: subAccountId,
                  email: entry.email,
                  email_key: key,
                  type: entry.type,
                  smtp_error: entry.smtpError ?? '',
                  created: entry.created,
                };
              }),
            )
            .onConflict((oc) => oc.columns(['sub_account_id', 'email_key']).doNothing())
            .execute();
          const rows = await trx
            .selectFrom('suppressions')
            .selectAll()
            .where('sub_account_id', '=', subAccountId)
            .where('email_key', 'in', chunk)
            .execute();
          for (const row of rows) found.set(row.email_key, toSuppression(row));
        }
        return found;
      });
      return [...byKey.keys()].flatMap((key) => {
        const record = stored.get(key);
        return record ? [record] : [];
      });
    },

    async remove(subAccountId, emails) {
      const keys = [...new Set(emails.map(emailKey))];
      if (keys.length === 0) return 0;
      return atomically(ctx, async (trx) => {
        let removed = 0;
        for (const chunk of chunks(keys, LOOKUP_CHUNK)) {
          const result = await trx
            .deleteFrom('suppressions')
            .where('sub_account_id', '=', subAccountId)
            .where('email_key', 'in', chunk)
            .executeTakeFirst();
          removed += Number(result.numDeletedRows);
        }
        return removed;
      });
    },

    async list(subAccountId, filter) {
      let select = db.selectFrom('suppressions').selectAll().where('sub_account_id', '=', subAccountId);
      if (filter.createdFrom !== undefined) select = select.where('created', '>=', filter.createdFrom);
      if (filter.createdBefore !== undefined) select = select.where('created', '<', filter.createdBefore);
      if (filter.type !== undefined) select = select.where('type', '=', filter.type);
      if (filter.search !== undefined) select = select.where(containsText('email_key', filter.search));
      const rows = await select.orderBy('id').limit(filter.limit).offset(filter.offset).execute();
      return rows.map(toSuppression);
    },

    async find(subAccountId, email) {
      const row = await db
        .selectFrom('suppressions')
        .selectAll()
        .where('sub_account_id', '=', subAccountId)
        .where('email_key', '=', emailKey(email))
        .executeTakeFirst();
      return row ? toSuppression(row) : null;
    },

    async isSuppressed(subAccountId, email) {
      const row = await db
        .selectFrom('suppressions')
        .select('id')
        .where('sub_account_id', '=', subAccountId)
        .where('email_key', '=', emailKey(email))
        .executeTakeFirst();
      return row !== undefined;
    },

    async suppressedAmong(subAccountId, emails) {
      const keys = [...new Set(emails.map(emailKey))];
      if (keys.length === 0) return [];
      const suppressed = new Set<string>();
      for (const chunk of chunks(keys, LOOKUP_CHUNK)) {
        const rows = await db
          .selectFrom('suppressions')
          .select('email_key')
          .where('sub_account_id', '=', subAccountId)
          .where('email_key', 'in', chunk)
          .execute();
        for (const row of rows) suppressed.add(row.email_key);
      }
      return [...new Set(emails)].filter((email) => suppressed.has(emailKey(email)));
    },
  };
}
