import type { Selectable } from 'kysely';
import { failure, success } from '../../../src/store/outcome.js';
import type {
  NewSubAccount,
  SmtpAuthRecord,
  SubAccountRecord,
  SubAccountStore,
  SubAccountType,
} from '../../../src/store/index.js';
import { atomically, type KyselyStoreContext } from './context.js';
import { containsText, isUniqueViolation } from './dialect.js';
import { fromBool, toBigint, toBool, toNumber, toNumberOrNull } from './rows.js';
import type { SmtpAuthsTable, SubAccountsTable } from './schema.js';

function toSubAccount(row: Selectable<SubAccountsTable>): SubAccountRecord {
  return {
    id: toNumber(row.id),
    accountId: toNumber(row.account_id),
    name: row.name,
    companyName: row.company_name,
    type: toNumber(row.type) as SubAccountType,
    isPlus: toBool(row.is_plus),
    blocked: toBool(row.blocked),
    blockedAt: toBigint(row.blocked_at),
    blockReason: row.block_reason,
    hbExempt: toBool(row.hb_exempt),
    generateWeeklyReport: toBool(row.generate_weekly_report),
    apiKeyHash: row.api_key_hash,
    apiKeySealed: row.api_key_sealed,
    defaultIpPoolId: toNumberOrNull(row.default_ip_pool_id),
    created: toBigint(row.created),
    updated: toBigint(row.updated),
    retentionDays: toNumberOrNull(row.retention_days),
  };
}

function toSmtpAuth(row: Selectable<SmtpAuthsTable>): SmtpAuthRecord {
  return {
    id: toNumber(row.id),
    subAccountId: toNumber(row.sub_account_id),
    username: row.username,
    passwordHash: row.password_hash,
    passwordSealed: row.password_sealed,
    created: toBigint(row.created),
    updated: toBigint(row.updated),
  };
}

/** The case-insensitive identity of a sub-account name. */
const nameKey = (name: string) => name.toLowerCase();

/** {@link SubAccountStore} on Kysely. */
export function kyselySubAccountStore(ctx: KyselyStoreContext): SubAccountStore {
  const { db } = ctx;
  return {
    create(input: NewSubAccount) {
      return atomically(ctx, async (trx) => {
        // ON CONFLICT DO NOTHING instead of catching the violation: in PostgreSQL a failed
        // statement would abort the caller's whole transaction.
        const row = await trx
          .insertInto('sub_accounts')
          .values({
            account_id: input.accountId,
            name: input.name,
            name_key: nameKey(input.name),
            company_name: input.companyName,
            type: input.type,
            is_plus: 0,
            blocked: 0,
            blocked_at: 0,
            block_reason: '',
            hb_exempt: 0,
            generate_weekly_report: 0,
            api_key_hash: input.apiKeyHash,
            api_key_sealed: input.apiKeySealed,
            default_ip_pool_id: null,
            created: input.created,
            updated: input.created,
          })
          .onConflict((oc) => oc.doNothing())
          .returningAll()
          .executeTakeFirst();
        if (!row) return failure('duplicate-name');
        await trx
          .insertInto('smtp_auths')
          .values({
            sub_account_id: row.id as number,
            username: input.smtpAuth.username,
            password_hash: input.smtpAuth.passwordHash,
            password_sealed: input.smtpAuth.passwordSealed,
            created: input.created,
            updated: input.created,
          })
          .execute();
        return success(toSubAccount(row));
      });
    },

    async get(accountId, id) {
      const row = await db
        .selectFrom('sub_accounts')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toSubAccount(row) : null;
    },

    async list(accountId, query) {
      let select = db.selectFrom('sub_accounts').selectAll().where('account_id', '=', accountId);
      if (query.search !== undefined) {
        select = select.where(containsText('name_key', query.search));
      }
      const rows = await select.orderBy('id').limit(query.limit).offset(query.offset).execute();
      return rows.map(toSubAccount);
    },

    async getDefault(accountId) {
      const row = await db
        .selectFrom('sub_accounts')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('type', '=', 0)
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      return row ? toSubAccount(row) : null;
    },

    async update(accountId, id, patch) {
      const values: Partial<Record<keyof SubAccountsTable, unknown>> = { updated: patch.updated };
      if (patch.name !== undefined) {
        values.name = patch.name;
        values.name_key = nameKey(patch.name);
      }
      if (patch.blocked !== undefined) values.blocked = fromBool(patch.blocked);
      if (patch.blockedAt !== undefined) values.blocked_at = patch.blockedAt;
      if (patch.blockReason !== undefined) values.block_reason = patch.blockReason;
      if (patch.defaultIpPoolId !== undefined) values.default_ip_pool_id = patch.defaultIpPoolId;
      if (patch.retentionDays !== undefined) values.retention_days = patch.retentionDays;
      try {
        const row = await db
          .updateTable('sub_accounts')
          .set(values as never)
          .where('account_id', '=', accountId)
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst();
        return row ? success(toSubAccount(row)) : failure('not-found');
      } catch (error) {
        if (isUniqueViolation(error)) return failure('duplicate-name');
        throw error;
      }
    },

    async delete(accountId, id) {
      return atomically(ctx, async (trx) => {
        // SMTP credentials go explicitly too: SQLite enforces ON DELETE CASCADE only with the
        // foreign_keys pragma, which a caller-supplied connection may not have set.
        const owned = await trx
          .selectFrom('sub_accounts')
          .select('id')
          .where('account_id', '=', accountId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (!owned) return false;
        await trx.deleteFrom('smtp_auths').where('sub_account_id', '=', id).execute();
        await trx.deleteFrom('sub_accounts').where('id', '=', id).execute();
        return true;
      });
    },

    async findByApiKeyHash(apiKeyHash) {
      const row = await db
        .selectFrom('sub_accounts')
        .selectAll()
        .where('api_key_hash', '=', apiKeyHash)
        .executeTakeFirst();
      return row ? toSubAccount(row) : null;
    },

    async listSmtpAuths(subAccountIds) {
      if (subAccountIds.length === 0) return [];
      const rows = await db
        .selectFrom('smtp_auths')
        .selectAll()
        .where('sub_account_id', 'in', [...subAccountIds])
        .orderBy('id')
        .execute();
      return rows.map(toSmtpAuth);
    },

    async findBySmtpUsername(username) {
      const auth = await db.selectFrom('smtp_auths').selectAll().where('username', '=', username).executeTakeFirst();
      if (!auth) return null;
      const smtpAuth = toSmtpAuth(auth);
      const subAccount = await db
        .selectFrom('sub_accounts')
        .selectAll()
        .where('id', '=', smtpAuth.subAccountId)
        .executeTakeFirst();
      return subAccount ? { subAccount: toSubAccount(subAccount), smtpAuth } : null;
    },

    async listRetentionOverrides() {
      const rows = await db
        .selectFrom('sub_accounts')
        .select(['id', 'account_id', 'retention_days'])
        .where('retention_days', 'is not', null)
        .orderBy('id')
        .execute();
      return rows.map((row) => ({
        accountId: toNumber(row.account_id),
        subAccountId: toNumber(row.id),
        retentionDays: toNumber(row.retention_days!),
      }));
    },
  };
}
