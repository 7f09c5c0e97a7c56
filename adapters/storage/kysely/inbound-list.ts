import { sql, type Selectable } from 'kysely';
import type { InboundListQueries, InboundMessageSummary } from '../../../src/store/index.js';
import type { KyselyStoreContext } from './context.js';
import { containsText } from './dialect.js';
import { inboundMessageFields } from './inbound-messages.js';
import type { InboundMessagesTable } from './tables/inbound.js';

/** A row of the list: the message's columns but its raw bytes, and its route's pattern. */
type SummaryRow = Omit<Selectable<InboundMessagesTable>, 'raw'> & {
  raw_kept: number | boolean | bigint;
  route_pattern: string | null;
};

function toSummary(row: SummaryRow): InboundMessageSummary {
  return {
    ...inboundMessageFields(row),
    rawKept: Boolean(Number(row.raw_kept)),
    routePattern: row.route_pattern,
  };
}

/** The list queries of the Kysely inbound store (migration 0034's indexes serve them). */
export function kyselyInboundListQueries({ db }: KyselyStoreContext): InboundListQueries {
  return {
    async listMessageSummaries(filter, page) {
      let q = db
        .selectFrom('inbound_messages as m')
        .leftJoin('inbound_routes as r', 'r.id', 'm.route_id')
        .select([
          'm.id',
          'm.account_id',
          'm.sub_account_id',
          'm.route_id',
          'm.received_at',
          'm.mail_from',
          'm.rcpt_to',
          'm.from_address',
          'm.subject',
          'm.message_id_header',
          'm.in_reply_to_message_id',
          'm.size',
          'm.auth',
          'm.status',
          'm.detail',
          'm.updated',
          'r.pattern as route_pattern',
        ])
        .select(sql<number>`case when m.raw is null then 0 else 1 end`.as('raw_kept'))
        .where('m.account_id', '=', filter.accountId);
      if (filter.subAccountId !== undefined) q = q.where('m.sub_account_id', '=', filter.subAccountId);
      if (filter.id !== undefined) q = q.where('m.id', '=', filter.id);
      if (filter.routeId !== undefined) q = q.where('m.route_id', '=', filter.routeId);
      if (filter.status !== undefined) q = q.where('m.status', '=', filter.status);
      // The expressions of migration 0034's indexes, written the same way so the planner uses them.
      if (filter.recipient !== undefined) q = q.where(sql`lower(m.rcpt_to)`, '=', filter.recipient);
      if (filter.sender !== undefined) q = q.where(sql`lower(m.from_address)`, '=', filter.sender);
      if (filter.inReplyToMessageId !== undefined)
        q = q.where('m.in_reply_to_message_id', '=', filter.inReplyToMessageId);
      const { search } = filter;
      if (search !== undefined)
        q = q.where((eb) =>
          eb.or(
            ['m.from_address', 'm.subject', 'm.rcpt_to'].map((column) => containsText(column, search, { lower: true })),
          ),
        );
      if (filter.from !== undefined) q = q.where('m.received_at', '>=', filter.from);
      if (filter.to !== undefined) q = q.where('m.received_at', '<', filter.to);
      const { after } = page;
      if (after) {
        // The plain `<=` is where the index range starts; the OR then skips the cursor's own row.
        q = q
          .where('m.received_at', '<=', after.at)
          .where((eb) =>
            eb.or([
              eb('m.received_at', '<', after.at),
              eb.and([eb('m.received_at', '=', after.at), eb('m.id', '<', after.id)]),
            ]),
          );
      }
      let ordered = q.orderBy('m.received_at', 'desc').orderBy('m.id', 'desc').limit(page.limit);
      if (page.offset) ordered = ordered.offset(page.offset);
      const rows = await ordered.execute();
      return rows.map((row) => toSummary(row as SummaryRow));
    },
  };
}
