import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { ActivityFilter, ActivityPage, ActivityMessage, ActivityEvent } from '../../../src/store/message-store.js';
import type { MessageRecord, RetentionScope, SendBatchRecord } from '../../../src/store/message-store.js';
import type { KyselyStoreContext } from './context.js';
import type { Database } from './schema.js';
import { groupNeedle } from './activity-keys.js';

/**
 * The message filters of `filter` on `table`: the messages, or the events, which carry their
 * message's keys, status and pool (migration 0024) so the event list never joins per row.
 */
function whereMessage<Q extends SelectQueryBuilder<Database, 'messages' | 'events', unknown>>(
  ctx: KyselyStoreContext,
  query: Q,
  filter: ActivityFilter,
  table: 'messages' | 'events',
): Q {
  const col = (name: string) => sql.ref(`${table}.${name}`);
  let q = query.where(col('account_id'), '=', filter.accountId) as Q;
  if (filter.subAccountId !== undefined) q = q.where(col('sub_account_id'), '=', filter.subAccountId) as Q;
  if (filter.recipient !== undefined) q = q.where(col('to_key'), '=', filter.recipient) as Q;
  if (filter.sender !== undefined) q = q.where(col('from_key'), '=', filter.sender) as Q;
  if (filter.status !== undefined) q = q.where(col('status'), '=', filter.status) as Q;
  if (filter.ipPoolId !== undefined) q = q.where(col('ip_pool_id'), '=', filter.ipPoolId) as Q;
  if (filter.messageId !== undefined)
    q = q.where(col(table === 'messages' ? 'id' : 'message_id'), '=', filter.messageId) as Q;
  if (filter.group !== undefined) {
    // A plain substring test: LIKE would fold case on SQLite and give meaning to % and _.
    const needle = groupNeedle(filter.group);
    const groups = col('group_key');
    const found =
      ctx.dialect === 'postgres' ? sql<number>`strpos(${groups}, ${needle})` : sql<number>`instr(${groups}, ${needle})`;
    q = q.where(found, '>', 0) as Q;
  }
  return q;
}

/**
 * `query` narrowed to the rows of a retention scope. One sub-account's rows are an index range
 * (account, sub-account, time: migration 0015's activity indexes).
 */
function inScope<T extends 'messages' | 'events' | 'send_batches', O>(
  query: SelectQueryBuilder<Database, T, O>,
  table: T,
  scope: RetentionScope | undefined,
) {
  const q = query as unknown as SelectQueryBuilder<Database, 'messages', O>;
  const column = (name: 'account_id' | 'sub_account_id') => sql.ref(`${table}.${name}`);
  let narrowed = q;
  if (scope?.subAccount) {
    narrowed = narrowed
      .where(column('account_id'), '=', scope.subAccount.accountId)
      .where(column('sub_account_id'), '=', scope.subAccount.subAccountId);
  }
  if (scope?.exceptSubAccountIds && scope.exceptSubAccountIds.length > 0) {
    narrowed = narrowed.where(column('sub_account_id'), 'not in', [...scope.exceptSubAccountIds]);
  }
  return narrowed as unknown as SelectQueryBuilder<Database, T, O>;
}

/** The sends of `batchIds`, by id: one query for a page instead of one per row. */
async function batchesById(
  db: Kysely<Database>,
  batchIds: readonly string[],
  toBatch: (row: never) => SendBatchRecord,
): Promise<Map<string, SendBatchRecord>> {
  const unique = [...new Set(batchIds)];
  if (unique.length === 0) return new Map();
  const rows = await db.selectFrom('send_batches').selectAll().where('id', 'in', unique).execute();
  return new Map(rows.map((row) => [row.id, toBatch(row as never)]));
}

/** Row mappers of the message store, shared with the activity queries. */
export interface ActivityMappers {
  toMessage(row: never): MessageRecord;
  toBatch(row: never): SendBatchRecord;
  toEvent(row: never): ActivityEvent['event'];
}

/** The activity queries and retention deletes of the Kysely message store. */
export function kyselyActivityQueries(ctx: KyselyStoreContext, map: ActivityMappers) {
  const { db } = ctx;
  return {
    async listActivity(filter: ActivityFilter, page: ActivityPage): Promise<ActivityMessage[]> {
      let q = whereMessage(ctx, db.selectFrom('messages').selectAll('messages'), filter, 'messages');
      if (filter.from !== undefined) q = q.where('messages.submitted_at', '>=', filter.from);
      if (filter.to !== undefined) q = q.where('messages.submitted_at', '<', filter.to);
      const after = page.after;
      if (after) {
        // The plain `<=` bound is what the index range starts at (an OR alone is no range, and
        // each later page would scan every row of the pages before it); the OR then skips the tie.
        q = q
          .where('messages.submitted_at', '<=', after.at)
          .where((eb) =>
            eb.or([
              eb('messages.submitted_at', '<', after.at),
              eb.and([eb('messages.submitted_at', '=', after.at), eb('messages.id', '<', after.id)]),
            ]),
          );
      }
      const rows = await q
        .orderBy('messages.submitted_at', 'desc')
        .orderBy('messages.id', 'desc')
        .limit(page.limit)
        .execute();
      const batches = await batchesById(
        db,
        rows.map((r) => r.batch_id),
        map.toBatch,
      );
      return rows.flatMap((row) => {
        const batch = batches.get(row.batch_id);
        return batch ? [{ message: map.toMessage(row as never), batch }] : [];
      });
    },

    async listActivityEvents(filter: ActivityFilter, page: ActivityPage): Promise<ActivityEvent[]> {
      // Every filter is a column of the event row (migration 0024), so a page is an index range of
      // events; the join only drops events whose message retention removed (a primary-key lookup
      // per listed row, not per scanned one).
      const joined = db
        .selectFrom('events')
        .innerJoin('messages', 'messages.id', 'events.message_id')
        .selectAll('events');
      let q = whereMessage(ctx, joined as never, filter, 'events') as unknown as typeof joined;
      if (filter.eventTypes !== undefined) q = q.where('events.type', 'in', [...filter.eventTypes]);
      if (filter.from !== undefined) q = q.where('events.created', '>=', filter.from);
      if (filter.to !== undefined) q = q.where('events.created', '<', filter.to);
      const after = page.after;
      if (after) {
        q = q.where('events.created', '<=', after.at);
        q = q.where((eb) =>
          eb.or([
            eb('events.created', '<', after.at),
            eb.and([eb('events.created', '=', after.at), eb('events.id', '<', after.id)]),
          ]),
        );
      }
      const rows = (await q
        .orderBy('events.created', 'desc')
        .orderBy('events.id', 'desc')
        .limit(page.limit)
        .execute()) as never[];
      const events = rows.map((row) => map.toEvent(row));
      const messageIds = [...new Set(events.map((e) => e.messageId))];
      const messageRows =
        messageIds.length === 0
          ? []
          : await db.selectFrom('messages').selectAll().where('id', 'in', messageIds).execute();
      const messages = new Map(messageRows.map((row) => [row.id, map.toMessage(row as never)]));
      const batches = await batchesById(
        db,
        messageRows.map((r) => r.batch_id),
        map.toBatch,
      );
      return events.flatMap((event) => {
        const message = messages.get(event.messageId);
        const batch = message && batches.get(message.batchId);
        return message && batch ? [{ event, message, batch }] : [];
      });
    },

    async deleteMessagesBefore(before: bigint, limit: number, scope?: RetentionScope): Promise<number> {
      // A bounded statement: a subquery picks at most `limit` ids (DELETE ... LIMIT is not portable).
      const old = inScope(
        db.selectFrom('messages').select('id').where('submitted_at', '<', before),
        'messages',
        scope,
      ).limit(limit);
      const result = await db.deleteFrom('messages').where('id', 'in', old).executeTakeFirst();
      const removed = Number(result.numDeletedRows);
      // Sends left without a message are dropped too (their content is the bulk of the bytes).
      const orphans = inScope(
        db
          .selectFrom('send_batches')
          .select('id')
          .where('created', '<', before)
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('messages').select('messages.id').whereRef('messages.batch_id', '=', 'send_batches.id'),
              ),
            ),
          ),
        'send_batches',
        scope,
      ).limit(limit);
      await db.deleteFrom('send_batches').where('id', 'in', orphans).execute();
      return removed;
    },

    async deleteEventsBefore(before: bigint, limit: number, scope?: RetentionScope): Promise<number> {
      const old = inScope(db.selectFrom('events').select('id').where('created', '<', before), 'events', scope).limit(
        limit,
      );
      const result = await db.deleteFrom('events').where('id', 'in', old).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
