import type { Selectable } from 'kysely';
import type { InboundPostAttemptRecord, InboundPostLog, WebhookDeliveryResult } from '../../../src/store/index.js';
import type { KyselyStoreContext } from './context.js';
import { toBigint, toNumber, toNumberOrNull } from './rows.js';
import type { InboundPostAttemptsTable } from './tables/inbound.js';

function toAttempt(row: Selectable<InboundPostAttemptsTable>): InboundPostAttemptRecord {
  return {
    id: toNumber(row.id),
    messageId: row.message_id,
    accountId: toNumber(row.account_id),
    subAccountId: toNumber(row.sub_account_id),
    routeId: toNumber(row.route_id),
    url: row.url,
    attempt: toNumber(row.attempt),
    result: row.result as WebhookDeliveryResult,
    status: toNumberOrNull(row.status),
    error: row.error ?? null,
    durationMs: toNumber(row.duration_ms),
    created: toBigint(row.created),
    nextRetryAt: row.next_retry_at === null ? null : toBigint(row.next_retry_at),
  };
}

/** {@link InboundPostLog} on Kysely (migration 0035). */
export function kyselyInboundPostLog(ctx: KyselyStoreContext): InboundPostLog {
  const { db } = ctx;
  return {
    async recordPostAttempt(attempt) {
      await db
        .insertInto('inbound_post_attempts')
        .values({
          message_id: attempt.messageId,
          account_id: attempt.accountId,
          sub_account_id: attempt.subAccountId,
          route_id: attempt.routeId,
          url: attempt.url,
          attempt: attempt.attempt,
          result: attempt.result,
          status: attempt.status,
          error: attempt.error,
          duration_ms: attempt.durationMs,
          created: attempt.created,
          next_retry_at: attempt.nextRetryAt,
        })
        .execute();
    },

    async listPostAttempts(subAccountId, messageId, query) {
      const rows = await db
        .selectFrom('inbound_post_attempts')
        .selectAll()
        .where('message_id', '=', messageId)
        .where('sub_account_id', '=', subAccountId)
        .orderBy('created', 'desc')
        .orderBy('id', 'desc')
        .limit(query.limit)
        .offset(query.offset)
        .execute();
      return rows.map(toAttempt);
    },

    async deletePostAttemptsBefore(before, limit) {
      if (limit <= 0) return 0;
      const old = db
        .selectFrom('inbound_post_attempts')
        .select('id')
        .where('created', '<', before)
        .orderBy('created')
        .limit(limit);
      const result = await db.deleteFrom('inbound_post_attempts').where('id', 'in', old).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
