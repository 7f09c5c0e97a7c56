import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import {
  suppressionKey,
  suppressionKeysOf,
  type NewSuppression,
  type SuppressionOwner,
  type SuppressionRecord,
  type SuppressionStore,
  type SuppressionType,
} from '../../../src/store/index.js';
import { atomically, type KyselyStoreContext } from './context.js';
import { containsText } from './dialect.js';
import { toBigint, toNumber } from './rows.js';
import type { Database } from './schema.js';
import type { SuppressionsTable } from './tables/suppressions.js';

/*
 * Bound parameters per statement stay well under SQLite's 32,766 and PostgreSQL's 65,535:
 * an insert binds 7 values per row, a lookup 1 per address.
 */
const INSERT_CHUNK = 1000;
const LOOKUP_CHUNK = 5000;

/**
 * Where one list lives. The two tables have the same columns but the owner's (`sub_account_id`,
 * `account_id`); the queries below are written once, against the sub-accounts' table's type, and
 * name the table and the owner column through this.
 */
interface ListTarget {
  table: 'suppressions';
  owner: 'sub_account_id';
  parent: 'sub_accounts';
  id: number;
  subAccountList: boolean;
}

function targetOf(owner: SuppressionOwner): ListTarget {
  if (typeof owner === 'number')
    return { table: 'suppressions', owner: 'sub_account_id', parent: 'sub_accounts', id: owner, subAccountList: true };
  return {
    table: 'account_suppressions' as 'suppressions',
    owner: 'account_id' as 'sub_account_id',
    parent: 'accounts' as 'sub_accounts',
    id: owner.accountId,
    subAccountList: false,
  };
}

function toSuppression(target: ListTarget, row: Selectable<SuppressionsTable>): SuppressionRecord {
  const ownerId = toNumber(row[target.owner]);
  return {
    id: toNumber(row.id),
    subAccountId: target.subAccountList ? ownerId : null,
    accountId: target.subAccountList ? null : ownerId,
    email: row.email,
    type: toNumber(row.type) as SuppressionType,
    smtpError: row.smtp_error,
    created: toBigint(row.created),
    expires: row.expires === null ? null : toBigint(row.expires),
  };
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The first entry of each address, by key, in the order of first appearance. */
function firstOfEach(entries: readonly NewSuppression[]): Map<string, NewSuppression> {
  const byKey = new Map<string, NewSuppression>();
  for (const entry of entries) {
    const key = suppressionKey(entry.email);
    if (!byKey.has(key)) byKey.set(key, entry);
  }
  return byKey;
}

/** Inserts one chunk of a list's entries; an existing record stays unless it had expired. */
async function insertChunk(
  trx: Kysely<Database>,
  target: ListTarget,
  rows: ReadonlyArray<[string, NewSuppression]>,
): Promise<void> {
  await trx
    .insertInto(target.table)
    .values(
      rows.map(
        ([key, entry]) =>
          ({
            // The owner column under its own name (see ListTarget).
            [target.owner]: target.id,
            email: entry.email,
            email_key: key,
            type: entry.type,
            smtp_error: entry.smtpError ?? '',
            created: entry.created,
            expires: entry.expires ?? null,
          }) as Insertable<SuppressionsTable>,
      ),
    )
    // ON CONFLICT is the idempotent, race-free upsert: a concurrent insert of the same address waits
    // on the unique index. Only a record expired by the time of the new entry gives way to it.
    .onConflict((oc) =>
      oc
        .columns([target.owner, 'email_key'])
        .doUpdateSet((eb) => ({
          email: eb.ref('excluded.email'),
          type: eb.ref('excluded.type'),
          smtp_error: eb.ref('excluded.smtp_error'),
          created: eb.ref('excluded.created'),
          expires: eb.ref('excluded.expires'),
        }))
        .where(({ and, eb, ref }) =>
          and([
            eb(`${target.table}.expires`, 'is not', null),
            eb(`${target.table}.expires`, '<=', ref('excluded.created')),
          ]),
        ),
    )
    .execute();
}

/** {@link SuppressionStore} on Kysely. */
export function kyselySuppressionStore(ctx: KyselyStoreContext): SuppressionStore {
  const { db } = ctx;
  const select = (target: ListTarget) => db.selectFrom(target.table).selectAll().where(target.owner, '=', target.id);
  return {
    async add(owner, entries) {
      const target = targetOf(owner);
      const byKey = firstOfEach(entries);
      if (byKey.size === 0) return [];
      // Inserting in key order gives concurrent PostgreSQL transactions one lock order, so two
      // overlapping batches wait for each other instead of deadlocking.
      const keys = [...byKey.keys()].sort();
      const stored = await atomically(ctx, async (trx) => {
        const found = new Map<string, SuppressionRecord>();
        // The owner may have been deleted (an unsubscribe link or a bounce of one of its messages
        // arrives later): then there is nothing to add, and the insert would only fail its foreign
        // key. On PostgreSQL the row is locked FOR KEY SHARE (what the foreign key check itself
        // takes), so a concurrent delete waits for this transaction and then removes what it
        // added, instead of failing it halfway.
        let parent = trx.selectFrom(target.parent).select('id').where('id', '=', target.id);
        if (ctx.dialect === 'postgres') parent = parent.forKeyShare();
        if (!(await parent.executeTakeFirst())) return found;
        for (const chunk of chunks(keys, INSERT_CHUNK)) {
          await insertChunk(
            trx,
            target,
            chunk.map((key) => [key, byKey.get(key)!]),
          );
          const rows = await trx
            .selectFrom(target.table)
            .selectAll()
            .where(target.owner, '=', target.id)
            .where('email_key', 'in', chunk)
            .execute();
          for (const row of rows) found.set(row.email_key, toSuppression(target, row));
        }
        return found;
      });
      return [...byKey.keys()].flatMap((key) => {
        const record = stored.get(key);
        return record ? [record] : [];
      });
    },

    async remove(owner, emails) {
      const target = targetOf(owner);
      const keys = [...new Set(emails.map(suppressionKey))];
      if (keys.length === 0) return 0;
      return atomically(ctx, async (trx) => {
        let removed = 0;
        for (const chunk of chunks(keys, LOOKUP_CHUNK)) {
          const result = await trx
            .deleteFrom(target.table)
            .where(target.owner, '=', target.id)
            .where('email_key', 'in', chunk)
            .executeTakeFirst();
          removed += Number(result.numDeletedRows);
        }
        return removed;
      });
    },

    async list(owner, filter) {
      const target = targetOf(owner);
      let query = select(target);
      if (filter.createdFrom !== undefined) query = query.where('created', '>=', filter.createdFrom);
      if (filter.createdBefore !== undefined) query = query.where('created', '<', filter.createdBefore);
      if (filter.type !== undefined) query = query.where('type', '=', filter.type);
      if (filter.search !== undefined) query = query.where(containsText('email_key', filter.search));
      if (filter.afterId !== undefined) query = query.where('id', '>', filter.afterId);
      const rows = await query.orderBy('id').limit(filter.limit).offset(filter.offset).execute();
      return rows.map((row) => toSuppression(target, row));
    },

    async find(owner, email) {
      const target = targetOf(owner);
      const row = await select(target).where('email_key', '=', suppressionKey(email)).executeTakeFirst();
      return row ? toSuppression(target, row) : null;
    },

    async isSuppressed(subAccountId, email, now) {
      return (await suppressedKeys(db, subAccountId, suppressionKeysOf(email), now)).size > 0;
    },

    async suppressedAmong(subAccountId, emails, now) {
      const given = [...new Set(emails)];
      if (given.length === 0) return [];
      const keys = [...new Set(given.flatMap(suppressionKeysOf))];
      const suppressed = new Set<string>();
      for (const chunk of chunks(keys, LOOKUP_CHUNK)) {
        for (const key of await suppressedKeys(db, subAccountId, chunk, now)) suppressed.add(key);
      }
      return given.filter((email) => suppressionKeysOf(email).some((key) => suppressed.has(key)));
    },

    async deleteExpired(now, limit) {
      let deleted = 0;
      for (const table of ['suppressions', 'account_suppressions'] as const) {
        if (deleted >= limit) break;
        // A bounded delete by id, the form both dialects take (neither has DELETE … LIMIT by default).
        const result = await db
          .deleteFrom(table)
          .where('id', 'in', (eb) =>
            eb
              .selectFrom(table)
              .select('id')
              .where('expires', 'is not', null)
              .where('expires', '<=', now)
              .limit(limit - deleted),
          )
          .executeTakeFirst();
        deleted += Number(result.numDeletedRows);
      }
      return deleted;
    },
  };
}

/**
 * The keys among `keys` on the sub-account's list or its account's, not expired at `now`: one
 * statement, one probe of each list's unique (owner, key) index per key.
 */
async function suppressedKeys(
  db: Kysely<Database>,
  subAccountId: number,
  keys: readonly string[],
  now: bigint,
): Promise<Set<string>> {
  const live = sql`(expires is null or expires > ${now})`;
  const { rows } = await sql<{ email_key: string }>`
    select email_key from suppressions
      where sub_account_id = ${subAccountId} and email_key in (${sql.join(keys)}) and ${live}
    union all
    select email_key from account_suppressions
      where account_id = (select account_id from sub_accounts where id = ${subAccountId})
        and email_key in (${sql.join(keys)}) and ${live}`.execute(db);
  return new Set(rows.map((row) => row.email_key));
}
