import type { Selectable } from 'kysely';
import type {
  EventRecord,
  EventType,
  MessageRecord,
  MessageStatus,
  MessageStore,
  SendBatchRecord,
} from '../../../src/store/message-store.js';
import type { KyselyStoreContext } from './context.js';
import { toBigint, toNumber, toNumberOrNull } from './rows.js';
import type { EventsTable, MessagesTable, SendBatchesTable } from './tables/messages.js';

/** Rows per INSERT: far below both dialects' bound-parameter limits at 18 columns a row. */
const INSERT_CHUNK = 500;

function chunks<T>(items: readonly T[], size = INSERT_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

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

const eventRow = (e: EventRecord) => ({
  id: e.id,
  message_id: e.messageId,
  account_id: e.accountId,
  sub_account_id: e.subAccountId,
  type: e.type,
  created: e.created,
  metadata: JSON.stringify(e.metadata),
});

/** {@link MessageStore} on Kysely. */
export function kyselyMessageStore(ctx: KyselyStoreContext): MessageStore {
  const { db } = ctx;

  const withBatch = async (row: Selectable<MessagesTable> | undefined) => {
    if (!row) return null;
    const batch = await db.selectFrom('send_batches').selectAll().where('id', '=', row.batch_id).executeTakeFirst();
    return batch ? { message: toMessage(row), batch: toBatch(batch) } : null;
  };

  return {
    async insertAccepted(batch, messages, events) {
      await db
        .insertInto('send_batches')
        .values({
          id: batch.id,
          account_id: batch.accountId,
          sub_account_id: batch.subAccountId,
          domain_id: batch.domainId,
          content: JSON.stringify(batch.content),
          created: batch.created,
        })
        .execute();
      for (const chunk of chunks(messages)) {
        await db
          .insertInto('messages')
          .values(
            chunk.map((m) => ({
              id: m.id,
              batch_id: m.batchId,
              account_id: m.accountId,
              sub_account_id: m.subAccountId,
              to_email: m.to.email,
              to_name: m.to.name,
              cc: JSON.stringify(m.cc),
              bcc: JSON.stringify(m.bcc),
              custom_fields: JSON.stringify(m.customFields),
              status: m.status,
              attempts: m.attempts,
              submitted_at: m.submittedAt,
              updated: m.updated,
              ip_id: m.ipId,
              ip_pool_id: m.ipPoolId,
              tpsp_id: m.tpspId,
              smtp_code: m.smtpCode,
              smtp_description: m.smtpDescription,
            })),
          )
          .execute();
      }
      for (const chunk of chunks(events)) await db.insertInto('events').values(chunk.map(eventRow)).execute();
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

    async listEvents(messageId) {
      const rows = await db.selectFrom('events').selectAll().where('message_id', '=', messageId).orderBy('created').orderBy('type').execute();
      return rows.map(toEvent);
    },

    async addEvents(events) {
      for (const chunk of chunks(events)) await db.insertInto('events').values(chunk.map(eventRow)).execute();
    },

    async recordOutcome(messageId, from, outcome) {
      const values: Record<string, unknown> = { status: outcome.status, updated: outcome.updated };
      if (outcome.attempts !== undefined) values.attempts = outcome.attempts;
      if (outcome.smtpCode !== undefined) values.smtp_code = outcome.smtpCode;
      if (outcome.smtpDescription !== undefined) values.smtp_description = outcome.smtpDescription;
      if (outcome.ipId !== undefined) values.ip_id = outcome.ipId;
      if (outcome.ipPoolId !== undefined) values.ip_pool_id = outcome.ipPoolId;
      if (outcome.tpspId !== undefined) values.tpsp_id = outcome.tpspId;
      const result = await db
        .updateTable('messages')
        .set(values as never)
        .where('id', '=', messageId)
        .where('status', 'in', [...from])
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
