import type { Selectable } from 'kysely';
import type {
  CopyOf,
  EventRecord,
  EventType,
  MessageRecord,
  MessageStatus,
  MessageStore,
  SendBatchRecord,
} from '../../../src/store/message-store.js';
import type { KyselyStoreContext } from './context.js';
import { bulkInsert } from './bulk-insert.js';
import { groupKey } from './activity-keys.js';
import { kyselyActivityQueries } from './activity-store.js';
import { toBigint, toNumber, toNumberOrNull } from './rows.js';
import type { EventsTable, MessagesTable, SendBatchesTable } from './tables/messages.js';

function toBatch(row: Selectable<SendBatchesTable>): SendBatchRecord {
  return {
    id: row.id,
    accountId: toNumber(row.account_id),
    subAccountId: toNumber(row.sub_account_id),
    domainId: toNumberOrNull(row.domain_id),
    content: JSON.parse(row.content) as SendBatchRecord['content'],
    created: toBigint(row.created),
  };
}

function toMessage(row: Selectable<MessagesTable>): MessageRecord {
  return {
    id: row.id,
    batchId: row.batch_id,
    accountId: toNumber(row.account_id),
    subAccountId: toNumber(row.sub_account_id),
    to: { email: row.to_email, name: row.to_name },
    cc: JSON.parse(row.cc) as MessageRecord['cc'],
    bcc: JSON.parse(row.bcc) as MessageRecord['bcc'],
    customFields: JSON.parse(row.custom_fields) as MessageRecord['customFields'],
    copyOf: row.copy_of === null ? null : (JSON.parse(row.copy_of) as CopyOf),
    separateCopies: toNumber(row.separate_copies) === 1,
    status: row.status as MessageStatus,
    attempts: toNumber(row.attempts),
    submittedAt: toBigint(row.submitted_at),
    updated: toBigint(row.updated),
    ipId: toNumberOrNull(row.ip_id),
    ipPoolId: toNumberOrNull(row.ip_pool_id),
    tpspId: toNumberOrNull(row.tpsp_id),
    smtpCode: toNumberOrNull(row.smtp_code),
    smtpDescription: row.smtp_description,
  };
}

function toEvent(row: Selectable<EventsTable>): EventRecord {
  return {
    id: row.id,
    messageId: row.message_id,
    accountId: toNumber(row.account_id),
    subAccountId: toNumber(row.sub_account_id),
    type: toNumber(row.type) as EventType,
    created: toBigint(row.created),
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  };
}

const BATCH_COLUMNS = ['id', 'account_id', 'sub_account_id', 'domain_id', 'content', 'created'] as const;

const MESSAGE_COLUMNS = [
  'id',
  'batch_id',
  'account_id',
  'sub_account_id',
  'to_email',
  'to_name',
  'cc',
  'bcc',
  'custom_fields',
  'status',
  'attempts',
  'submitted_at',
  'updated',
  'ip_id',
  'ip_pool_id',
  'tpsp_id',
  'smtp_code',
  'smtp_description',
  'copy_of',
  'separate_copies',
  'to_key',
  'from_key',
  'group_key',
] as const;

const messageValues = (batch: SendBatchRecord) => (m: MessageRecord) => [
  m.id,
  m.batchId,
  m.accountId,
  m.subAccountId,
  m.to.email,
  m.to.name,
  JSON.stringify(m.cc),
  JSON.stringify(m.bcc),
  JSON.stringify(m.customFields),
  m.status,
  m.attempts,
  m.submittedAt,
  m.updated,
  m.ipId,
  m.ipPoolId,
  m.tpspId,
  m.smtpCode,
  m.smtpDescription,
  m.copyOf === null ? null : JSON.stringify(m.copyOf),
  m.separateCopies ? 1 : 0,
  m.to.email.toLowerCase(),
  batch.content.from.email.toLowerCase(),
  groupKey(batch.content.groups),
];

const EVENT_COLUMNS = [
  'id',
  'message_id',
  'account_id',
  'sub_account_id',
  'type',
  'created',
  'metadata',
  'to_key',
  'from_key',
  'group_key',
  'status',
  'ip_pool_id',
] as const;

/** The message columns each event row carries (migration 0024), so the event list filters on the event alone. */
type EventKeys = Pick<Selectable<MessagesTable>, 'to_key' | 'from_key' | 'group_key' | 'status' | 'ip_pool_id'>;

const NO_KEYS: EventKeys = { to_key: '', from_key: '', group_key: '', status: '', ip_pool_id: null };

const eventValues = (keys: ReadonlyMap<string, EventKeys>) => (e: EventRecord) => {
  const k = keys.get(e.messageId) ?? NO_KEYS;
  return [
    e.id,
    e.messageId,
    e.accountId,
    e.subAccountId,
    e.type,
    e.created,
    JSON.stringify(e.metadata),
    k.to_key,
    k.from_key,
    k.group_key,
    k.status,
    k.ip_pool_id,
  ];
};

/** The event keys of messages being written with their send (one place with {@link messageValues}). */
const acceptedKeys = (batch: SendBatchRecord, messages: readonly MessageRecord[]) =>
  new Map<string, EventKeys>(
    messages.map((m) => [
      m.id,
      {
        to_key: m.to.email.toLowerCase(),
        from_key: batch.content.from.email.toLowerCase(),
        group_key: groupKey(batch.content.groups),
        status: m.status,
        ip_pool_id: m.ipPoolId,
      },
    ]),
  );

/** {@link MessageStore} on Kysely. */
export function kyselyMessageStore(ctx: KyselyStoreContext): MessageStore {
  const { db } = ctx;

  const withBatch = async (row: Selectable<MessagesTable> | undefined) => {
    if (!row) return null;
    const batch = await db.selectFrom('send_batches').selectAll().where('id', '=', row.batch_id).executeTakeFirst();
    return batch ? { message: toMessage(row), batch: toBatch(batch) } : null;
  };

  return {
    ...kyselyActivityQueries(ctx, { toMessage, toBatch, toEvent } as never),

    async insertAccepted(batch, messages, events) {
      // Raw like the rows below: this runs once per accepted send, and the query builder costs more than the insert.
      await bulkInsert(ctx, 'send_batches', BATCH_COLUMNS, [
        [batch.id, batch.accountId, batch.subAccountId, batch.domainId, JSON.stringify(batch.content), batch.created],
      ]);
      await bulkInsert(ctx, 'messages', MESSAGE_COLUMNS, messages.map(messageValues(batch)));
      await bulkInsert(ctx, 'events', EVENT_COLUMNS, events.map(eventValues(acceptedKeys(batch, messages))));
    },

    async get(accountId, messageId) {
      const row = await db
        .selectFrom('messages')
        .selectAll()
        .where('id', '=', messageId)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return withBatch(row);
    },

    async getForDelivery(messageId) {
      return withBatch(await db.selectFrom('messages').selectAll().where('id', '=', messageId).executeTakeFirst());
    },

    async listQueued(batchId, limit, afterId) {
      let query = db.selectFrom('messages').selectAll().where('batch_id', '=', batchId).where('status', '=', 'queued');
      if (afterId !== undefined) query = query.where('id', '>', afterId);
      return (await query.orderBy('id').limit(limit).execute()).map(toMessage);
    },

    async listBatch(batchId, limit, afterId) {
      // The (batch_id, status, id) index narrows it to the batch (at most 2,000 messages).
      let query = db.selectFrom('messages').selectAll().where('batch_id', '=', batchId);
      if (afterId !== undefined) query = query.where('id', '>', afterId);
      return (await query.orderBy('id').limit(limit).execute()).map(toMessage);
    },

    async findCopy(batchId, messageId, email) {
      // The batch index narrows it to one send's copies (at most 1,000); the address is compared
      // here, as SQLite's lower() folds ASCII only.
      const rows = await db
        .selectFrom('messages')
        .selectAll()
        .where('batch_id', '=', batchId)
        .where('copy_of', 'is not', null)
        .execute();
      const key = email.toLowerCase();
      return (
        rows.map(toMessage).find((m) => m.copyOf?.messageId === messageId && m.to.email.toLowerCase() === key) ?? null
      );
    },

    async listEvents(messageId) {
      const rows = await db
        .selectFrom('events')
        .selectAll()
        .where('message_id', '=', messageId)
        .orderBy('created')
        .orderBy('type')
        .execute();
      return rows.map(toEvent);
    },

    async addEvents(events) {
      const ids = [...new Set(events.map((e) => e.messageId))];
      const rows =
        ids.length === 0
          ? []
          : await db
              .selectFrom('messages')
              .select(['id', 'to_key', 'from_key', 'group_key', 'status', 'ip_pool_id'])
              .where('id', 'in', ids)
              .execute();
      await bulkInsert(
        ctx,
        'events',
        EVENT_COLUMNS,
        events.map(eventValues(new Map(rows.map((row) => [row.id, row])))),
      );
    },

    async recordOutcome(messageId, from, outcome) {
      const values: Record<string, unknown> = { status: outcome.status, updated: outcome.updated };
      if (outcome.attempts !== undefined) values.attempts = outcome.attempts;
      if (outcome.smtpCode !== undefined) values.smtp_code = outcome.smtpCode;
      if (outcome.smtpDescription !== undefined) values.smtp_description = outcome.smtpDescription;
      if (outcome.ipId !== undefined) values.ip_id = outcome.ipId;
      if (outcome.ipPoolId !== undefined) values.ip_pool_id = outcome.ipPoolId;
      if (outcome.tpspId !== undefined) values.tpsp_id = outcome.tpspId;
      let update = db
        .updateTable('messages')
        .set(values as never)
        .where('id', '=', messageId)
        .where('status', 'in', [...from]);
      // The attempt that was made: two workers that made the same one record it once.
      if (outcome.attempts !== undefined) update = update.where('attempts', '=', outcome.attempts - 1);
      const result = await update.executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      // The message's events carry its status and pool for the event list's filters (migration 0024).
      const eventFields: Record<string, unknown> = { status: outcome.status };
      if (outcome.ipPoolId !== undefined) eventFields.ip_pool_id = outcome.ipPoolId;
      await db
        .updateTable('events')
        .set(eventFields as never)
        .where('message_id', '=', messageId)
        .execute();
      return true;
    },
  };
}
