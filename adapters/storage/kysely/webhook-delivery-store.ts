import type { Selectable } from 'kysely';
import type { WebhookDeliveryRecord, WebhookDeliveryResult, WebhookStore } from '../../../src/store/index.js';
import { bulkInsert } from './bulk-insert.js';
import type { KyselyStoreContext } from './context.js';
import { toBigint, toNumber, toNumberOrNull } from './rows.js';
import type { WebhookDeliveriesTable } from './tables/webhooks.js';

/** The columns of one log row, in the order {@link bulkInsert} gets them. */
const COLUMNS = [
  'account_id',
  'webhook_id',
  'event_id',
  'replay_id',
  'attempt',
  'result',
  'status',
  'error',
  'duration_ms',
  'created',
  'next_retry_at',
] as const;

function toDelivery(row: Selectable<WebhookDeliveriesTable>): WebhookDeliveryRecord {
  return {
    id: toNumber(row.id),
    accountId: toNumber(row.account_id),
    webhookId: toNumber(row.webhook_id),
    eventId: row.event_id,
    replayId: row.replay_id ?? null,
    attempt: toNumber(row.attempt),
    result: row.result as WebhookDeliveryResult,
    status: toNumberOrNull(row.status),
    error: row.error ?? null,
    durationMs: toNumber(row.duration_ms),
    created: toBigint(row.created),
    nextRetryAt: row.next_retry_at === null ? null : toBigint(row.next_retry_at),
  };
}

/** The delivery-log half of the Kysely {@link WebhookStore}. */
export function kyselyWebhookDeliveryLog(
  ctx: KyselyStoreContext,
): Pick<WebhookStore, 'recordDeliveries' | 'listDeliveries' | 'deleteDeliveriesBefore'> {
  const { db } = ctx;
  return {
    async recordDeliveries(entries) {
      if (entries.length === 0) return;
      // One statement for a whole job's first attempts: the log must not cost a round trip per event.
      const rows = entries.map((e) => [
        e.accountId,
        e.webhookId,
        e.eventId,
        e.replayId,
        e.attempt,
        e.result,
        e.status,
        e.error,
        e.durationMs,
        e.created,
        e.nextRetryAt,
      ]);
      await bulkInsert(ctx, 'webhook_deliveries', COLUMNS, rows);
    },

    async listDeliveries(accountId, webhookId, query) {
      const rows = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', webhookId)
        .where('account_id', '=', accountId)
        .orderBy('created', 'desc')
        .orderBy('id', 'desc')
        .limit(query.limit)
        .offset(query.offset)
        .execute();
      return rows.map(toDelivery);
    },

    async deleteDeliveriesBefore(before, limit) {
      const old = db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('created', '<', before)
        .orderBy('created')
        .limit(limit);
      const result = await db.deleteFrom('webhook_deliveries').where('id', 'in', old).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
