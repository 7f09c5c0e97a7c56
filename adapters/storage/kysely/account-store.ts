import type { Selectable } from 'kysely';
import type { AccountRecord, AccountStore, NewAccount } from '../../../src/store/index.js';
import type { KyselyStoreContext } from './context.js';
import { toBigint, toNumber } from './rows.js';
import type { AccountsTable } from './schema.js';

function toAccount(row: Selectable<AccountsTable>): AccountRecord {
  return {
    id: toNumber(row.id),
    name: row.name,
    apiKeyHash: row.api_key_hash,
    apiKeySealed: row.api_key_sealed,
    created: toBigint(row.created),
  };
}

/** {@link AccountStore} on Kysely. */
export function kyselyAccountStore(ctx: KyselyStoreContext): AccountStore {
  const { db } = ctx;
  return {
    async create(input: NewAccount) {
      const row = await db
        .insertInto('accounts')
        .values({
          name: input.name,
          api_key_hash: input.apiKeyHash,
          api_key_sealed: input.apiKeySealed,
          created: input.created,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toAccount(row);
    },
    async get(id) {
      const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toAccount(row) : null;
    },
    async findByApiKeyHash(apiKeyHash) {
      const row = await db.selectFrom('accounts').selectAll().where('api_key_hash', '=', apiKeyHash).executeTakeFirst();
      return row ? toAccount(row) : null;
    },
    async first() {
      const row = await db.selectFrom('accounts').selectAll().orderBy('id').limit(1).executeTakeFirst();
      return row ? toAccount(row) : null;
    },
    async setApiKey(id, apiKeyHash, apiKeySealed) {
      await db
        .updateTable('accounts')
        .set({ api_key_hash: apiKeyHash, api_key_sealed: apiKeySealed })
        .where('id', '=', id)
        .execute();
    },
  };
}
