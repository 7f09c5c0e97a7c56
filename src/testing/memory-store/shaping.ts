import type { ShapingAdmission, ShapingStore } from '../../store/shaping-store.js';
import type { MemoryContext } from './common.js';
import type { ShapingStateRow } from './rows.js';
import type { TableRows } from './tables.js';

function stateOf(tables: TableRows, key: string, accountId: number, nowMs: number): ShapingStateRow {
  const existing = tables.shapingStates.get(key);
  if (existing) return { ...existing };
  const created: ShapingStateRow = {
    key,
    accountId,
    factor: 1,
    nextSlotAt: 0,
    suspendedUntil: null,
    reason: null,
    lastReply: null,
    lastReplyAt: null,
    throttledAt: null,
    recoveredAt: null,
    updatedAt: nowMs,
  };
  tables.shapingStates.set(key, created);
  return { ...created };
}

function inFlight(tables: TableRows, key: string, nowMs: number): number {
  let sum = 0;
  for (const flight of tables.shapingFlights.values())
    if (flight.shapingKey === key && flight.leaseUntil > nowMs) sum += flight.inFlight;
  return sum;
}

/** {@link ShapingStore} of the in-memory store: every call one atomic write. */
export function memoryShapingStore(ctx: MemoryContext): ShapingStore {
  return {
    admit: (request) =>
      ctx.write((tables): ShapingAdmission => {
        const { key, nowMs } = request;
        const state = stateOf(tables, key, request.accountId, nowMs);
        if (state.suspendedUntil !== null && state.suspendedUntil > nowMs)
          return { admitted: false, why: 'suspended', retryAt: state.suspendedUntil, booked: false };
        if (request.maxConnections !== null) {
          const cap = Math.max(1, Math.floor(request.maxConnections * state.factor));
          if (inFlight(tables, key, nowMs) >= cap)
            return { admitted: false, why: 'connections', retryAt: nowMs, booked: false };
        }
        if (request.intervalMs !== null && !request.paid) {
          const spacing = request.intervalMs / state.factor;
          if (state.nextSlotAt > nowMs) {
            if (request.book) tables.shapingStates.set(key, { ...state, nextSlotAt: state.nextSlotAt + spacing });
            return { admitted: false, why: 'rate', retryAt: state.nextSlotAt, booked: request.book };
          }
          state.nextSlotAt = nowMs + spacing;
        }
        tables.shapingStates.set(key, { ...state, updatedAt: nowMs });
        const flightKey = `${key}\u0000${request.holder}`;
        const flight = tables.shapingFlights.get(flightKey);
        const live = flight && flight.leaseUntil > nowMs ? flight.inFlight : 0;
        tables.shapingFlights.set(flightKey, {
          key: flightKey,
          shapingKey: key,
          inFlight: live + 1,
          leaseUntil: nowMs + request.leaseMs,
        });
        return { admitted: true, factor: state.factor };
      }),

    release: (key, holder) =>
      ctx.write((tables) => {
        const flightKey = `${key}\u0000${holder}`;
        const flight = tables.shapingFlights.get(flightKey);
        if (flight && flight.inFlight > 0)
          tables.shapingFlights.set(flightKey, { ...flight, inFlight: flight.inFlight - 1 });
      }),

    pushBack: (event) =>
      ctx.write((tables) => {
        const state = stateOf(tables, event.key, event.accountId, event.nowMs);
        if (event.action === 'slow-down') {
          if (state.throttledAt === null || state.throttledAt <= event.nowMs - event.gapMs) {
            state.factor = Math.max(event.minFactor, state.factor / 2);
            state.throttledAt = event.nowMs;
          }
        } else {
          state.suspendedUntil = Math.max(state.suspendedUntil ?? 0, event.untilMs ?? event.nowMs);
        }
        tables.shapingStates.set(event.key, {
          ...state,
          reason: event.reason,
          lastReply: event.reply,
          lastReplyAt: event.nowMs,
          updatedAt: event.nowMs,
        });
      }),

    recover: (key, nowMs, quietMs, step) =>
      ctx.write((tables) => {
        const state = tables.shapingStates.get(key);
        if (!state) return 1;
        const quiet = (at: number | null) => at === null || at <= nowMs - quietMs;
        if (state.factor >= 1 || !quiet(state.throttledAt) || !quiet(state.recoveredAt)) return state.factor;
        const factor = Math.min(1, state.factor * step);
        tables.shapingStates.set(key, { ...state, factor, recoveredAt: nowMs, updatedAt: nowMs });
        return factor;
      }),

    states: (accountId, nowMs, limit) =>
      ctx.read((tables) =>
        [...tables.shapingStates.values()]
          .filter((state) => accountId === null || state.accountId === accountId)
          .sort((a, b) => b.updatedAt - a.updatedAt || (a.key < b.key ? -1 : 1))
          .slice(0, limit)
          .map((state) => ({ ...state, inFlight: inFlight(tables, state.key, nowMs) })),
      ),

    suspended: (nowMs) =>
      ctx.read((tables) =>
        [...tables.shapingStates.values()]
          .filter((state) => state.suspendedUntil !== null && state.suspendedUntil > nowMs)
          .map((state) => ({ key: state.key, until: state.suspendedUntil! })),
      ),

    resume: (accountId, key) =>
      ctx.write((tables) => {
        const state = tables.shapingStates.get(key);
        if (!state || state.accountId !== accountId) return false;
        tables.shapingStates.set(key, { ...state, suspendedUntil: null, factor: 1 });
        return true;
      }),

    rules: (accountId) => ctx.read((tables) => structuredClone(tables.shapingRules.get(accountId)?.rules ?? [])),

    replaceRules: (accountId, rules) =>
      ctx.write((tables) => {
        if (rules.length === 0) tables.shapingRules.delete(accountId);
        else tables.shapingRules.set(accountId, { key: accountId, rules: structuredClone([...rules]) });
      }),

    prune: (beforeMs) =>
      ctx.write((tables) => {
        let removed = 0;
        for (const state of [...tables.shapingStates.values()]) {
          if (state.updatedAt >= beforeMs) continue;
          tables.shapingStates.delete(state.key);
          removed += 1;
        }
        for (const flight of [...tables.shapingFlights.values()])
          if (flight.leaseUntil < beforeMs || !tables.shapingStates.get(flight.shapingKey))
            tables.shapingFlights.delete(flight.key);
        return removed;
      }),
  };
}
