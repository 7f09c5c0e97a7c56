import type { InboundListQueries, InboundMessageFilter, InboundMessageSummary } from '../../store/index.js';
import { contains, type MemoryContext } from './common.js';
import type { InboundMessageRow } from './rows.js';
import type { TableRows } from './tables.js';

/** Newest first by (`receivedAt`, `id`), as the Kysely store orders its lists. */
const newestFirst = (a: InboundMessageRow, b: InboundMessageRow) =>
  a.receivedAt === b.receivedAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.receivedAt < b.receivedAt ? 1 : -1;

/** Whether `m` is one of `filter`'s messages. */
function matches(m: InboundMessageRow, filter: InboundMessageFilter): boolean {
  const equal = <T>(wanted: T | undefined, value: T) => wanted === undefined || wanted === value;
  return (
    m.accountId === filter.accountId &&
    equal(filter.subAccountId, m.subAccountId) &&
    equal(filter.id, m.id) &&
    equal(filter.routeId, m.routeId ?? undefined) &&
    equal(filter.status, m.status) &&
    equal(filter.recipient, m.rcptTo.toLowerCase()) &&
    equal(filter.sender, m.from.toLowerCase()) &&
    equal(filter.inReplyToMessageId, m.inReplyToMessageId ?? undefined) &&
    (filter.search === undefined || [m.from, m.subject, m.rcptTo].some((text) => contains(text, filter.search))) &&
    (filter.from === undefined || m.receivedAt >= filter.from) &&
    (filter.to === undefined || m.receivedAt < filter.to)
  );
}

/** A message of the list: no raw bytes, its route's pattern while the route exists. */
function toSummary(tables: TableRows, row: InboundMessageRow): InboundMessageSummary {
  const { key: _key, raw, ...fields } = row;
  const route = row.routeId === null ? undefined : tables.inboundRoutes.get(row.routeId);
  return { ...structuredClone(fields), rawKept: raw !== null, routePattern: route?.pattern ?? null };
}

/** {@link InboundListQueries} of the in-memory store. */
export function memoryInboundListQueries(ctx: MemoryContext): InboundListQueries {
  return {
    listMessageSummaries: (filter, page) =>
      ctx.read((tables) => {
        const { after } = page;
        const start = page.offset ?? 0;
        return [...tables.inboundMessages.values()]
          .filter((m) => matches(m, filter))
          .filter((m) => !after || m.receivedAt < after.at || (m.receivedAt === after.at && m.id < after.id))
          .sort(newestFirst)
          .slice(start, start + page.limit)
          .map((row) => toSummary(tables, row));
      }),
  };
}
