import type {
  ActivityCursor,
  ActivityEvent,
  ActivityFilter,
  ActivityMessage,
  ActivityPage,
  RetentionScope,
} from '../../store/index.js';
import { inRetentionScope, toRecord } from './common.js';
import type { MessageRow } from './rows.js';
import type { TableRows } from './tables.js';

/** Whether a message row passes the message filters of `filter`. */
function messageMatches(row: MessageRow, sender: string, groups: readonly string[], filter: ActivityFilter): boolean {
  return (
    row.accountId === filter.accountId &&
    (filter.subAccountId === undefined || row.subAccountId === filter.subAccountId) &&
    (filter.recipient === undefined || row.to.email.toLowerCase() === filter.recipient) &&
    (filter.sender === undefined || sender.toLowerCase() === filter.sender) &&
    (filter.status === undefined || row.status === filter.status) &&
    (filter.ipPoolId === undefined || row.ipPoolId === filter.ipPoolId) &&
    (filter.messageId === undefined || row.id === filter.messageId) &&
    (filter.group === undefined || groups.includes(filter.group))
  );
}

const inRange = (at: bigint, filter: ActivityFilter) =>
  (filter.from === undefined || at >= filter.from) && (filter.to === undefined || at < filter.to);

/** Newest first by (timestamp, id), as the Kysely store orders. */
const newestFirst = (a: ActivityCursor, b: ActivityCursor) =>
  a.at !== b.at ? (a.at > b.at ? -1 : 1) : a.id > b.id ? -1 : a.id < b.id ? 1 : 0;

const afterCursor = (key: ActivityCursor, after: ActivityCursor | undefined) =>
  after === undefined || newestFirst(key, after) > 0;

/** The activity queries of the in-memory store (a scan: it is for tests, not for scale). */
export function memoryActivityQueries(tables: TableRows) {
  const withBatch = (row: MessageRow | undefined) => {
    const batch = row && tables.batches.get(row.batchId);
    return row && batch ? { row, batch } : undefined;
  };
  return {
    listActivity(filter: ActivityFilter, page: ActivityPage): ActivityMessage[] {
      return [...tables.messages.values()]
        .map((row) => withBatch(row)!)
        .filter(
          (found) =>
            found && messageMatches(found.row, found.batch.content.from.email, found.batch.content.groups, filter),
        )
        .map((found) => ({ found, key: { at: found.row.submittedAt, id: found.row.id } }))
        .filter(({ found, key }) => inRange(found.row.submittedAt, filter) && afterCursor(key, page.after))
        .sort((a, b) => newestFirst(a.key, b.key))
        .slice(0, page.limit)
        .map(({ found }) => ({ message: toRecord(found.row), batch: toRecord(found.batch) }));
    },

    listActivityEvents(filter: ActivityFilter, page: ActivityPage): ActivityEvent[] {
      return [...tables.events.values()]
        .filter(
          (e) =>
            e.accountId === filter.accountId &&
            (filter.subAccountId === undefined || e.subAccountId === filter.subAccountId),
        )
        .filter(
          (e) => (filter.eventTypes === undefined || filter.eventTypes.includes(e.type)) && inRange(e.created, filter),
        )
        .filter((e) => afterCursor({ at: e.created, id: e.id }, page.after))
        .map((e) => ({ e, found: withBatch(tables.messages.get(e.messageId)) }))
        .filter(
          ({ found }) =>
            found && messageMatches(found.row, found.batch.content.from.email, found.batch.content.groups, filter),
        )
        .sort((a, b) => newestFirst({ at: a.e.created, id: a.e.id }, { at: b.e.created, id: b.e.id }))
        .slice(0, page.limit)
        .map(({ e, found }) => {
          const { seq: _seq, ...event } = e;
          return { event: toRecord(event), message: toRecord(found!.row), batch: toRecord(found!.batch) };
        });
    },

    deleteMessagesBefore(before: bigint, limit: number, scope?: RetentionScope): number {
      const old = [...tables.messages.values()]
        .filter((m) => m.submittedAt < before && inRetentionScope(m, scope))
        .slice(0, limit);
      for (const m of old) tables.messages.delete(m.id);
      const live = new Set([...tables.messages.values()].map((m) => m.batchId));
      const orphans = [...tables.batches.values()]
        .filter((b) => b.created < before && !live.has(b.id) && inRetentionScope(b, scope))
        .slice(0, limit);
      for (const b of orphans) tables.batches.delete(b.id);
      return old.length;
    },

    deleteEventsBefore(before: bigint, limit: number, scope?: RetentionScope): number {
      const old = [...tables.events.values()]
        .filter((e) => e.created < before && inRetentionScope(e, scope))
        .slice(0, limit);
      for (const e of old) tables.events.delete(e.id);
      return old.length;
    },
  };
}
