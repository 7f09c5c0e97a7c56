import type { InboundPostLog } from '../../store/inbound-post-log.js';
import { requireParent, toRecord, type MemoryContext } from './common.js';

/** {@link InboundPostLog} of the in-memory store (a scan: it is for tests, not for scale). */
export function memoryInboundPostLog(ctx: MemoryContext): InboundPostLog {
  return {
    recordPostAttempt: (attempt) =>
      ctx.write((tables) => {
        requireParent(tables.inboundMessages.has(attempt.messageId), `inbound message ${attempt.messageId}`);
        const id = ctx.nextId('inboundPostAttempts');
        tables.inboundPostAttempts.set(id, { key: id, id, ...structuredClone(attempt) });
      }),

    listPostAttempts: (subAccountId, messageId, query) =>
      ctx.read((tables) =>
        [...tables.inboundPostAttempts.values()]
          .filter((a) => a.subAccountId === subAccountId && a.messageId === messageId)
          .sort((a, b) => (a.created === b.created ? b.id - a.id : a.created < b.created ? 1 : -1))
          .slice(query.offset, query.offset + query.limit)
          .map((row) => toRecord(row)),
      ),

    deletePostAttemptsBefore: (before, limit) =>
      ctx.write((tables) => {
        const old = [...tables.inboundPostAttempts.values()]
          .filter((a) => a.created < before)
          .sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : a.id - b.id))
          .slice(0, Math.max(0, limit));
        for (const row of old) tables.inboundPostAttempts.delete(row.key);
        return old.length;
      }),
  };
}
