import { sql, type Selectable } from 'kysely';
import { failure, success } from '../../../src/store/outcome.js';
import type { NewWebhook, WebhookPatch, WebhookRecord, WebhookStore, WebhookToggle } from '../../../src/store/index.js';
import type { KyselyStoreContext } from './context.js';
import { containsText, isUniqueViolation } from './dialect.js';
import { fromBool, toBigint, toBool, toNumber } from './rows.js';
import type { WebhooksTable } from './tables/webhooks.js';
import { kyselyWebhookDeliveryLog } from './webhook-delivery-store.js';

/** The column of each event switch. */
const TOGGLE_COLUMNS = {
  processed: 'processed',
  delivered: 'delivered',
  dropped: 'dropped',
  softBounced: 'soft_bounced',
  hardBounced: 'hard_bounced',
  opened: 'opened',
  clicked: 'clicked',
  unsubscribed: 'unsubscribed',
  spam: 'spam',
  sent: 'sent',
  smtpDropped: 'smtp_dropped',
  uniqueOpen: 'unique_open',
  uniqueClick: 'unique_click',
  incident: 'incident',
} as const satisfies Record<WebhookToggle, keyof WebhooksTable>;

const TOGGLES = Object.keys(TOGGLE_COLUMNS) as WebhookToggle[];

const bigintOrNull = (value: Selectable<WebhooksTable>['failing_since'] | undefined) =>
  value === null || value === undefined ? null : toBigint(value);

/** The nullable columns a {@link WebhookPatch} may set, by field. */
const NULLABLE_COLUMNS = {
  previousSecretSealed: 'previous_secret_sealed',
  previousSecretUntil: 'previous_secret_until',
  failingSince: 'failing_since',
  disabledReason: 'disabled_reason',
  disabledAt: 'disabled_at',
} as const satisfies Partial<Record<keyof WebhookPatch, keyof WebhooksTable>>;

function toWebhook(row: Selectable<WebhooksTable>): WebhookRecord {
  const record = {
    id: toNumber(row.id),
    accountId: toNumber(row.account_id),
    url: row.url,
    enabled: toBool(row.enabled),
    secretSealed: row.secret_sealed,
    previousSecretSealed: row.previous_secret_sealed ?? null,
    previousSecretUntil: bigintOrNull(row.previous_secret_until),
    failingSince: bigintOrNull(row.failing_since),
    disabledReason: row.disabled_reason ?? null,
    disabledAt: bigintOrNull(row.disabled_at),
    replayId: row.replay_id ?? null,
    replayClaimedAt: bigintOrNull(row.replay_claimed_at),
    created: toBigint(row.created),
    updated: toBigint(row.updated),
  } as WebhookRecord;
  for (const toggle of TOGGLES) record[toggle] = toBool(row[TOGGLE_COLUMNS[toggle]]);
  return record;
}

/** The case-insensitive search key of a URL. */
const urlKey = (url: string) => url.toLowerCase();

/** {@link WebhookStore} on Kysely. */
export function kyselyWebhookStore(ctx: KyselyStoreContext): WebhookStore {
  const { db } = ctx;
  return {
    async create(input: NewWebhook) {
      const values: Record<string, unknown> = {
        account_id: input.accountId,
        url: input.url,
        url_key: urlKey(input.url),
        enabled: fromBool(input.enabled),
        secret_sealed: input.secretSealed,
        created: input.created,
        updated: input.created,
      };
      for (const toggle of TOGGLES) values[TOGGLE_COLUMNS[toggle]] = fromBool(input[toggle]);
      // ON CONFLICT DO NOTHING instead of catching the violation: in PostgreSQL a failed statement
      // would abort the caller's whole transaction.
      const row = await db
        .insertInto('webhooks')
        .values(values as never)
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .executeTakeFirst();
      return row ? success(toWebhook(row)) : failure('duplicate-url');
    },

    async get(accountId, id) {
      const row = await db
        .selectFrom('webhooks')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toWebhook(row) : null;
    },

    async list(accountId, query) {
      let select = db.selectFrom('webhooks').selectAll().where('account_id', '=', accountId);
      if (query.search !== undefined) select = select.where(containsText('url_key', query.search));
      const rows = await select.orderBy('id').limit(query.limit).offset(query.offset).execute();
      return rows.map(toWebhook);
    },

    async update(accountId, id, patch) {
      const values: Record<string, unknown> = { updated: patch.updated };
      if (patch.url !== undefined) {
        values.url = patch.url;
        values.url_key = urlKey(patch.url);
      }
      if (patch.enabled !== undefined) values.enabled = fromBool(patch.enabled);
      if (patch.secretSealed !== undefined) values.secret_sealed = patch.secretSealed;
      if (patch.rotateTo) {
        // The stored secret becomes the previous one in this statement: SET's right-hand sides read
        // the row as it was before the update, so a concurrent rotation's secret is kept, not lost.
        values.previous_secret_sealed = sql.ref('secret_sealed');
        values.secret_sealed = patch.rotateTo.secretSealed;
        values.previous_secret_until = patch.rotateTo.previousUntil;
      }
      for (const [field, column] of Object.entries(NULLABLE_COLUMNS)) {
        const value = patch[field as keyof typeof NULLABLE_COLUMNS];
        if (value !== undefined) values[column] = value;
      }
      for (const toggle of TOGGLES) {
        const value = patch[toggle];
        if (value !== undefined) values[TOGGLE_COLUMNS[toggle]] = fromBool(value);
      }
      try {
        const row = await db
          .updateTable('webhooks')
          .set(values as never)
          .where('account_id', '=', accountId)
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst();
        return row ? success(toWebhook(row)) : failure('not-found');
      } catch (error) {
        if (isUniqueViolation(error)) return failure('duplicate-url');
        throw error;
      }
    },

    async delete(accountId, id) {
      const row = await db
        .deleteFrom('webhooks')
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toWebhook(row) : null;
    },

    async listEnabledForEvent(accountId, toggle) {
      const column = TOGGLE_COLUMNS[toggle];
      if (column === undefined) return [];
      const rows = await db
        .selectFrom('webhooks')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('enabled', '=', 1)
        .where(column, '=', 1)
        .orderBy('id')
        .execute();
      return rows.map(toWebhook);
    },

    async recordDeliveryOutcome(accountId, id, outcome) {
      const mine = db.updateTable('webhooks').where('account_id', '=', accountId).where('id', '=', id);
      if (outcome.ok) {
        await mine.set({ failing_since: null }).where('failing_since', 'is not', null).execute();
        return null;
      }
      await mine.set({ failing_since: outcome.at }).where('failing_since', 'is', null).execute();
      // One conditional UPDATE: of concurrent failures only the one that flips `enabled` gets a row.
      const row = await mine
        .set({ enabled: 0, disabled_reason: outcome.reason, disabled_at: outcome.at })
        .where('enabled', '=', 1)
        .where('failing_since', '<=', outcome.at - outcome.disableAfter)
        .returningAll()
        .executeTakeFirst();
      return row ? toWebhook(row) : null;
    },

    async claimReplay(accountId, id, claim) {
      const row = await db
        .updateTable('webhooks')
        .set({ replay_id: claim.replayId, replay_claimed_at: claim.at })
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .where((eb) =>
          eb.or([
            eb('replay_id', 'is', null),
            eb('replay_id', '=', claim.replayId),
            eb('replay_claimed_at', '<', claim.staleBefore),
          ]),
        )
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },

    async releaseReplay(accountId, id, replayId) {
      await db
        .updateTable('webhooks')
        .set({ replay_id: null, replay_claimed_at: null })
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .where('replay_id', '=', replayId)
        .execute();
    },

    ...kyselyWebhookDeliveryLog(ctx),
  };
}
