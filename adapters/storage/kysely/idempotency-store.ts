import type { IdempotencyKeyRecord, IdempotencyStore } from '../../../src/store/idempotency-store.js';
import type { KyselyStoreContext } from './context.js';
import { toNumber } from './rows.js';
import type { IdempotencyKeysTable } from './tables/idempotency.js';

type Row = {
  [K in keyof IdempotencyKeysTable]: IdempotencyKeysTable[K] extends string ? string : number | bigint | string;
};

function fromRow(row: Row): IdempotencyKeyRecord {
  return {
    subAccountId: toNumber(row.sub_account_id),
    key: row.key,
    requestHash: row.request_hash,
    response: row.response,
    createdMs: toNumber(row.created_ms),
    expiresMs: toNumber(row.expires_ms),
  };
}

/**
 * {@link IdempotencyStore} on Kysely. A claim is one `INSERT ... ON CONFLICT DO UPDATE ... WHERE
 * expired`: the primary key decides between concurrent claims (PostgreSQL makes the second wait
 * for the first's transaction, then finds the live row and writes nothing), and an expired row the
 * retention job has not deleted yet is taken over in the same step.
 */
export function kyselyIdempotencyStore(ctx: KyselyStoreContext): IdempotencyStore {
  const { db } = ctx;
  return {
    async claim(record) {
      const result = await db
        .insertInto('idempotency_keys')
        .values({
          sub_account_id: record.subAccountId,
          key: record.key,
          request_hash: record.requestHash,
          response: record.response,
          created_ms: record.createdMs,
          expires_ms: record.expiresMs,
        })
        .onConflict((oc) =>
          oc
            .columns(['sub_account_id', 'key'])
            .doUpdateSet((eb) => ({
              request_hash: eb.ref('excluded.request_hash'),
              response: eb.ref('excluded.response'),
              created_ms: eb.ref('excluded.created_ms'),
              expires_ms: eb.ref('excluded.expires_ms'),
            }))
            .where('idempotency_keys.expires_ms', '<=', record.createdMs),
        )
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async find(subAccountId, key, nowMs) {
      const row = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('sub_account_id', '=', subAccountId)
        .where('key', '=', key)
        .where('expires_ms', '>', nowMs)
        .executeTakeFirst();
      return row ? fromRow(row as Row) : null;
    },

    async deleteExpired(nowMs, limit) {
      if (limit <= 0) return 0;
      // One statement: the rows to delete are chosen by the expiry index, at most `limit` of them.
      const result = await db
        .deleteFrom('idempotency_keys')
        .where(({ eb, refTuple, selectFrom }) =>
          eb(
            refTuple('sub_account_id', 'key'),
            'in',
            selectFrom('idempotency_keys')
              .select(['sub_account_id', 'key'])
              .where('expires_ms', '<=', nowMs)
              .limit(limit)
              .$asTuple('sub_account_id', 'key'),
          ),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
