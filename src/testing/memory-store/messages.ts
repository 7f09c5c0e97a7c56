import type { EventRecord, MessageRecord, MessageStore, SendBatchRecord } from '../../store/index.js';
import { toRecord, uniqueViolation, type MemoryContext } from './common.js';
import type { EventRow, MessageRow } from './rows.js';
import type { TableRows } from './tables.js';
import { memoryActivityQueries } from './activity.js';

const asMessage = (row: MessageRow): MessageRecord => toRecord(row);

function withBatch(
  tables: TableRows,
  row: MessageRow | undefined,
): { message: MessageRecord; batch: SendBatchRecord } | null {
  const batch = row && tables.batches.get(row.batchId);
  return row && batch ? { message: asMessage(row), batch: toRecord(batch) } : null;
}

/** Event ids are a primary key: a repeated one fails the whole write, as a database's would. */
function insertEvents(tables: TableRows, events: readonly EventRecord[], nextSeq: () => number): void {
  for (const event of events) {
    if (tables.events.has(event.id)) uniqueViolation(`event id ${event.id}`);
    const row: EventRow = { ...structuredClone(event), key: event.id, seq: nextSeq() };
    tables.events.set(event.id, row);
  }
}

/** {@link MessageStore} of the in-memory store. */
export function memoryMessageStore(ctx: MemoryContext): MessageStore {
  const nextSeq = () => ctx.nextId('events');
  return {
    listActivity: (filter, page) => ctx.read((tables) => memoryActivityQueries(tables).listActivity(filter, page)),
    listActivityEvents: (filter, page) =>
      ctx.read((tables) => memoryActivityQueries(tables).listActivityEvents(filter, page)),
    deleteMessagesBefore: (before, limit, scope) =>
      ctx.write((tables) => memoryActivityQueries(tables).deleteMessagesBefore(before, limit, scope)),
    deleteEventsBefore: (before, limit, scope) =>
      ctx.write((tables) => memoryActivityQueries(tables).deleteEventsBefore(before, limit, scope)),

    insertAccepted: (batch, messages, events) =>
      ctx.write((tables) => {
        if (tables.batches.has(batch.id)) uniqueViolation(`send batch id ${batch.id}`);
        tables.batches.set(batch.id, { ...structuredClone(batch), key: batch.id });
        for (const message of messages) {
          if (tables.messages.has(message.id)) uniqueViolation(`message id ${message.id}`);
          tables.messages.set(message.id, { ...structuredClone(message), key: message.id });
        }
        insertEvents(tables, events, nextSeq);
      }),

    get: (accountId, messageId) =>
      ctx.read((tables) => {
        const row = tables.messages.get(messageId);
        return row?.accountId === accountId ? withBatch(tables, row) : null;
      }),

    getForDelivery: (messageId) => ctx.read((tables) => withBatch(tables, tables.messages.get(messageId))),

    listQueued: (batchId, limit, afterId) =>
      ctx.read((tables) =>
        [...tables.messages.values()]
          .filter((m) => m.batchId === batchId && m.status === 'queued' && (afterId === undefined || m.id > afterId))
          .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .slice(0, limit)
          .map(asMessage),
      ),

    listBatch: (batchId, limit, afterId) =>
      ctx.read((tables) =>
        [...tables.messages.values()]
          .filter((m) => m.batchId === batchId && (afterId === undefined || m.id > afterId))
          .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .slice(0, limit)
          .map(asMessage),
      ),

    findCopy: (batchId, messageId, email) =>
      ctx.read((tables) => {
        const key = email.toLowerCase();
        const row = [...tables.messages.values()].find(
          (m) => m.batchId === batchId && m.copyOf?.messageId === messageId && m.to.email.toLowerCase() === key,
        );
        return row ? asMessage(row) : null;
      }),

    listEvents: (messageId) =>
      ctx.read((tables) =>
        [...tables.events.values()]
          .filter((e) => e.messageId === messageId)
          .sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : a.type - b.type || a.seq - b.seq))
          .map((row): EventRecord => {
            const { seq: _seq, ...event } = row;
            return toRecord(event);
          }),
      ),

    addEvents: (events) => ctx.write((tables) => insertEvents(tables, events, nextSeq)),

    recordOutcome: (messageId, from, outcome) =>
      ctx.write((tables) => {
        const row = tables.messages.get(messageId);
        if (!row || !from.includes(row.status)) return false;
        // The attempt that was made: two workers that made the same one record it once.
        if (outcome.attempts !== undefined && row.attempts !== outcome.attempts - 1) return false;
        const changes = Object.fromEntries(Object.entries(outcome).filter(([, value]) => value !== undefined));
        tables.messages.set(messageId, { ...row, ...changes });
        return true;
      }),
  };
}
