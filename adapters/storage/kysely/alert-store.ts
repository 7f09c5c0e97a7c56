import type { Kysely, Selectable } from 'kysely';
import { isResourceId } from '../../../src/model/ids.js';
import type {
  AlertEntityType,
  AlertParameter,
  AlertRecord,
  AlertStore,
  AlertWindowHours,
} from '../../../src/store/index.js';
import { failure, success } from '../../../src/store/outcome.js';
import { atomically, type KyselyStoreContext } from './context.js';
import { containsText } from './dialect.js';
import { fromBool, toBigint, toBool, toNumber, toNumberOrNull } from './rows.js';
import type { Database } from './schema.js';
import type { AlertsTable } from './tables/alerts.js';

/** Row -> {@link AlertRecord}. */
function toAlert(row: Selectable<AlertsTable>): AlertRecord {
  return {
    id: toNumber(row.id),
    accountId: toNumber(row.account_id),
    name: row.name,
    active: toBool(row.active),
    entityType: row.entity_type as AlertEntityType,
    entityId: toNumber(row.entity_id),
    parameter: toNumber(row.parameter) as AlertParameter,
    threshold: Number(row.threshold),
    provider: toNumberOrNull(row.provider),
    processedCountThreshold: toNumber(row.processed_count_threshold),
    windowHours: toNumber(row.window_hours) as AlertWindowHours,
    emails: JSON.parse(row.emails) as string[],
    slackUrl: row.slack_url,
    created: toBigint(row.created),
    updated: toBigint(row.updated),
  };
}

/**
 * Whether `entityId` names an entity of `type` that belongs to `accountId`. An id beyond what storage
 * holds is no entity (PostgreSQL would refuse the comparison, not miss).
 */
export async function entityOfAccount(
  db: Kysely<Database>,
  accountId: number,
  type: AlertEntityType,
  entityId: number,
): Promise<boolean> {
  if (!isResourceId(entityId)) return false;
  const owned = (table: 'sub_accounts' | 'ips' | 'ip_pools') =>
    db.selectFrom(table).select('id').where('account_id', '=', accountId).where('id', '=', entityId).executeTakeFirst();
  switch (type) {
    case 'account':
      return entityId === accountId;
    case 'subAccount':
      return (await owned('sub_accounts')) !== undefined;
    case 'ip':
      return (await owned('ips')) !== undefined;
    case 'ipPool':
      return (await owned('ip_pools')) !== undefined;
    case 'domain': {
      const row = await db
        .selectFrom('domains')
        .innerJoin('sub_accounts', 'sub_accounts.id', 'domains.sub_account_id')
        .select('domains.id')
        .where('sub_accounts.account_id', '=', accountId)
        .where('domains.id', '=', entityId)
        .executeTakeFirst();
      return row !== undefined;
    }
    default:
      return false;
  }
}

/** {@link AlertStore} on Kysely. */
export function kyselyAlertStore(ctx: KyselyStoreContext): AlertStore {
  const { db } = ctx;
  return {
    create(input) {
      return atomically(ctx, async (trx) => {
        if (!(await entityOfAccount(trx, input.accountId, input.entityType, input.entityId))) {
          return failure('entity-not-found');
        }
        const row = await trx
          .insertInto('alerts')
          .values({
            account_id: input.accountId,
            name: input.name,
            name_key: input.name.toLowerCase(),
            active: fromBool(input.active),
            entity_type: input.entityType,
            entity_id: input.entityId,
            parameter: input.parameter,
            threshold: input.threshold,
            provider: input.provider,
            processed_count_threshold: input.processedCountThreshold,
            window_hours: input.windowHours,
            emails: JSON.stringify(input.emails),
            slack_url: input.slackUrl,
            created: input.created,
            updated: input.created,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return success(toAlert(row));
      });
    },

    async get(accountId, id) {
      const row = await db
        .selectFrom('alerts')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toAlert(row) : null;
    },

    async list(accountId, query) {
      let select = db.selectFrom('alerts').selectAll().where('account_id', '=', accountId);
      if (query.search !== undefined) select = select.where(containsText('name_key', query.search));
      const rows = await select.orderBy('id').limit(query.limit).offset(query.offset).execute();
      return rows.map(toAlert);
    },

    async count(accountId, search) {
      let select = db
        .selectFrom('alerts')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('account_id', '=', accountId);
      if (search !== undefined) select = select.where(containsText('name_key', search));
      const row = await select.executeTakeFirstOrThrow();
      return toNumber(row.count as number | bigint | string);
    },

    update(accountId, id, patch) {
      return atomically(ctx, async (trx) => {
        const current = await trx
          .selectFrom('alerts')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (!current) return failure('not-found');
        const entityType = patch.entityType ?? (current.entity_type as AlertEntityType);
        const entityId = patch.entityId ?? toNumber(current.entity_id);
        if (
          (patch.entityType !== undefined || patch.entityId !== undefined) &&
          !(await entityOfAccount(trx, accountId, entityType, entityId))
        ) {
          return failure('entity-not-found');
        }
        const values: Partial<Record<keyof AlertsTable, unknown>> = { updated: patch.updated };
        if (patch.name !== undefined) {
          values.name = patch.name;
          values.name_key = patch.name.toLowerCase();
        }
        if (patch.active !== undefined) values.active = fromBool(patch.active);
        if (patch.entityType !== undefined) values.entity_type = patch.entityType;
        if (patch.entityId !== undefined) values.entity_id = patch.entityId;
        if (patch.parameter !== undefined) values.parameter = patch.parameter;
        if (patch.threshold !== undefined) values.threshold = patch.threshold;
        if (patch.provider !== undefined) values.provider = patch.provider;
        if (patch.processedCountThreshold !== undefined)
          values.processed_count_threshold = patch.processedCountThreshold;
        if (patch.windowHours !== undefined) values.window_hours = patch.windowHours;
        if (patch.emails !== undefined) values.emails = JSON.stringify(patch.emails);
        if (patch.slackUrl !== undefined) values.slack_url = patch.slackUrl;
        const row = await trx
          .updateTable('alerts')
          .set(values as never)
          .where('account_id', '=', accountId)
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst();
        return row ? success(toAlert(row)) : failure('not-found');
      });
    },

    async delete(accountId, id) {
      const row = await db
        .deleteFrom('alerts')
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toAlert(row) : null;
    },

    async listActive(afterId, limit) {
      const rows = await db
        .selectFrom('alerts')
        .selectAll()
        .where('active', '=', fromBool(true))
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(toAlert);
    },

    async protection(accountId) {
      const rows = await db
        .selectFrom('protection_settings')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('sub_account_id')
        .execute();
      return rows.map((row) => ({
        accountId: toNumber(row.account_id),
        subAccountId: toNumber(row.sub_account_id),
        settings: JSON.parse(row.settings) as Record<string, unknown>,
        updated: toBigint(row.updated),
      }));
    },

    setProtection(accountId, subAccountId, settings, updated) {
      return atomically(ctx, async (trx) => {
        if (subAccountId !== 0) {
          const owned = await trx
            .selectFrom('sub_accounts')
            .select('id')
            .where('id', '=', subAccountId)
            .where('account_id', '=', accountId)
            .executeTakeFirst();
          if (!owned) return false;
        }
        if (settings === null) {
          await trx
            .deleteFrom('protection_settings')
            .where('account_id', '=', accountId)
            .where('sub_account_id', '=', subAccountId)
            .execute();
          return true;
        }
        const json = JSON.stringify(settings);
        await trx
          .insertInto('protection_settings')
          .values({ account_id: accountId, sub_account_id: subAccountId, settings: json, updated })
          .onConflict((oc) => oc.columns(['account_id', 'sub_account_id']).doUpdateSet({ settings: json, updated }))
          .execute();
        return true;
      });
    },
  };
}
