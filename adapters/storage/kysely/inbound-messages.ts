import type { Selectable } from 'kysely';
import type {
  InboundAuthResults,
  InboundMessageRecord,
  InboundStatus,
  InboundStore,
} from '../../../src/store/index.js';
import { atomically, type KyselyStoreContext } from './context.js';
import { containsText } from './dialect.js';
import { kyselyInboundPostLog } from './inbound-post-log.js';
import { toBigint, toNumber, toNumberOrNull } from './rows.js';
import type { InboundMessagesTable } from './tables/inbound.js';

/** A received message's fields from its row, all but the raw bytes (the list reads without them). */
export function inboundMessageFields(
  row: Omit<Selectable<InboundMessagesTable>, 'raw'>,
): Omit<InboundMessageRecord, 'raw'> {
  return {
    id: row.id,
    accountId: toNumber(row.account_id),
    subAccountId: toNumber(row.sub_account_id),
    routeId: toNumberOrNull(row.route_id),
    receivedAt: toBigint(row.received_at),
    mailFrom: row.mail_from,
    rcptTo: row.rcpt_to,
    from: row.from_address,
    subject: row.subject,
    messageIdHeader: row.message_id_header,
    inReplyToMessageId: row.in_reply_to_message_id,
    size: toNumber(row.size),
    auth: JSON.parse(row.auth) as InboundAuthResults,
    status: row.status as InboundStatus,
    detail: row.detail,
    updated: toBigint(row.updated),
  };
}

function toMessage(row: Selectable<InboundMessagesTable>): InboundMessageRecord {
  return { ...inboundMessageFields(row), raw: row.raw === null ? null : Buffer.from(row.raw) };
}

/** The received messages of the Kysely {@link InboundStore}, with their post log. */
export function kyselyInboundMessages(
  ctx: KyselyStoreContext,
): Pick<
  InboundStore,
  | 'insertMessage'
  | 'getMessage'
  | 'listMessages'
  | 'setMessageStatus'
  | 'deleteMessagesBefore'
  | 'recordPostAttempt'
  | 'listPostAttempts'
  | 'deletePostAttemptsBefore'
> {
  const { db } = ctx;
  return {
    ...kyselyInboundPostLog(ctx),

    async insertMessage(message) {
      await db
        .insertInto('inbound_messages')
        .values({
          id: message.id,
          account_id: message.accountId,
          sub_account_id: message.subAccountId,
          route_id: message.routeId,
          received_at: message.receivedAt,
          mail_from: message.mailFrom,
          rcpt_to: message.rcptTo,
          from_address: message.from,
          subject: message.subject,
          message_id_header: message.messageIdHeader,
          in_reply_to_message_id: message.inReplyToMessageId,
          size: message.size,
          raw: message.raw,
          auth: JSON.stringify(message.auth),
          status: message.status,
          detail: message.detail,
          updated: message.updated,
        })
        .execute();
    },

    async getMessage(subAccountId, id) {
      const row = await db
        .selectFrom('inbound_messages')
        .selectAll()
        .where('sub_account_id', '=', subAccountId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toMessage(row) : null;
    },

    async listMessages(subAccountId, query) {
      let select = db.selectFrom('inbound_messages').selectAll().where('sub_account_id', '=', subAccountId);
      if (query.routeId !== undefined) select = select.where('route_id', '=', query.routeId);
      const { search } = query;
      if (search !== undefined)
        select = select.where((eb) =>
          eb.or(['from_address', 'subject', 'rcpt_to'].map((column) => containsText(column, search, { lower: true }))),
        );
      const rows = await select
        .orderBy('received_at', 'desc')
        .orderBy('id', 'desc')
        .limit(query.limit)
        .offset(query.offset)
        .execute();
      return rows.map(toMessage);
    },

    async setMessageStatus(id, status, detail, updated) {
      await db.updateTable('inbound_messages').set({ status, detail, updated }).where('id', '=', id).execute();
    },

    async deleteMessagesBefore(before, limit, scope) {
      if (limit <= 0) return 0;
      let oldest = db.selectFrom('inbound_messages').select('id').where('received_at', '<', before);
      // One sub-account's messages are a range of the (sub-account, received) index.
      if (scope?.subAccount)
        oldest = oldest
          .where('account_id', '=', scope.subAccount.accountId)
          .where('sub_account_id', '=', scope.subAccount.subAccountId);
      if (scope?.exceptSubAccountIds && scope.exceptSubAccountIds.length > 0)
        oldest = oldest.where('sub_account_id', 'not in', [...scope.exceptSubAccountIds]);
      const ids = (await oldest.orderBy('received_at').orderBy('id').limit(limit).execute()).map((row) => row.id);
      if (ids.length === 0) return 0;
      return atomically(ctx, async (trx) => {
        // Their post log explicitly too: SQLite cascades only with the foreign_keys pragma, which a
        // caller-supplied connection may not have set.
        await trx.deleteFrom('inbound_post_attempts').where('message_id', 'in', ids).execute();
        const result = await trx.deleteFrom('inbound_messages').where('id', 'in', ids).executeTakeFirst();
        return Number(result.numDeletedRows);
      });
    },
  };
}
