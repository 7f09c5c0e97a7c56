import type { WarmupStore } from '../../store/index.js';
import { toRecord, type MemoryContext } from './common.js';

/** {@link WarmupStore} of the in-memory store: additive counts and a compare-and-set progress row per IP. */
export function memoryWarmupStore(ctx: MemoryContext): WarmupStore {
  return {
    addTraffic: (entries) =>
      ctx.write((tables) => {
        // An IP deleted while its message was out has no counts to keep.
        for (const e of entries.filter((entry) => tables.ips.has(entry.ipId))) {
          const dayKey = `${e.ipId}\u0000${e.day}\u0000${e.provider}`;
          const day = tables.dailySends.get(dayKey);
          if (e.sent > 0 && !e.reserved)
            tables.dailySends.set(dayKey, {
              key: dayKey,
              ipId: e.ipId,
              day: e.day,
              provider: e.provider,
              sent: (day?.sent ?? 0) + e.sent,
            });
          const windowKey = `${e.ipId}\u0000${e.startedAt}\u0000${e.window}\u0000${e.provider}`;
          const window = tables.warmupTraffic.get(windowKey);
          tables.warmupTraffic.set(windowKey, {
            key: windowKey,
            ipId: e.ipId,
            startedAt: e.startedAt,
            window: e.window,
            provider: e.provider,
            sent: (window?.sent ?? 0) + e.sent,
            bounced: (window?.bounced ?? 0) + e.bounced,
            deferred: (window?.deferred ?? 0) + e.deferred,
          });
        }
      }),

    reserveSend: (send, cap) =>
      ctx.write((tables) => {
        if (!tables.ips.has(send.ipId)) return false;
        const key = `${send.ipId}\u0000${send.day}\u0000${send.provider}`;
        const sent = tables.dailySends.get(key)?.sent ?? 0;
        if (sent >= cap) return false;
        tables.dailySends.set(key, { key, ipId: send.ipId, day: send.day, provider: send.provider, sent: sent + 1 });
        return true;
      }),

    returnSend: (send) =>
      ctx.write((tables) => {
        const key = `${send.ipId}\u0000${send.day}\u0000${send.provider}`;
        const row = tables.dailySends.get(key);
        if (row && row.sent > 0) tables.dailySends.set(key, { ...row, sent: row.sent - 1 });
      }),

    sentOn: (ipIds, day) =>
      ctx.read((tables) => {
        const wanted = new Set(ipIds);
        return [...tables.dailySends.values()]
          .filter((r) => wanted.has(r.ipId) && r.day === day && r.sent > 0)
          .sort((a, b) => a.ipId - b.ipId || a.provider - b.provider)
          .map((r) => ({ ipId: r.ipId, provider: r.provider, sent: r.sent }));
      }),

    trafficBetween: (ipId, startedAt, fromWindow, toWindow) =>
      ctx.read((tables) => {
        const byProvider = new Map<number, { provider: number; sent: number; bounced: number; deferred: number }>();
        for (const r of tables.warmupTraffic.values()) {
          if (r.ipId !== ipId || r.startedAt !== startedAt || r.window < fromWindow || r.window >= toWindow) continue;
          const sum = byProvider.get(r.provider) ?? { provider: r.provider, sent: 0, bounced: 0, deferred: 0 };
          sum.sent += r.sent;
          sum.bounced += r.bounced;
          sum.deferred += r.deferred;
          byProvider.set(r.provider, sum);
        }
        return [...byProvider.values()].sort((a, b) => a.provider - b.provider);
      }),

    progressOf: (ipIds) =>
      ctx.read((tables) =>
        [...new Set(ipIds)]
          .sort((a, b) => a - b)
          .flatMap((ipId) => {
            const row = tables.warmupProgress.get(ipId);
            return row ? [toRecord(row)] : [];
          }),
      ),

    saveProgress: (record, expectedEvaluated) =>
      ctx.write((tables) => {
        const stored = tables.warmupProgress.get(record.ipId);
        // The stored progress of this warmup at the expected evaluation; with nothing evaluated
        // yet, no row, or a row of an earlier warmup of the IP, which this one replaces.
        const matches =
          stored === undefined
            ? expectedEvaluated === 0
            : expectedEvaluated === 0
              ? stored.startedAt !== record.startedAt || stored.evaluated === 0
              : stored.startedAt === record.startedAt && stored.evaluated === expectedEvaluated;
        if (!matches) return false;
        tables.warmupProgress.set(record.ipId, { ...structuredClone(record), key: record.ipId });
        return true;
      }),

    prune: (ipId, beforeDay, keepStartedAt) =>
      ctx.write((tables) => {
        for (const r of [...tables.dailySends.values()])
          if (r.ipId === ipId && r.day < beforeDay) tables.dailySends.delete(r.key);
        for (const r of [...tables.warmupTraffic.values()]) {
          if (r.ipId === ipId && r.startedAt !== keepStartedAt) tables.warmupTraffic.delete(r.key);
        }
      }),
  };
}
