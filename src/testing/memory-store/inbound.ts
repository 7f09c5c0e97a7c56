import { normalizeName } from '../../dns/names.js';
import { failure, success } from '../../store/outcome.js';
import type {
  InboundDomainRecord,
  InboundMessageRecord,
  InboundRouteRecord,
  InboundStore,
} from '../../store/inbound-store.js';
import { contains, inRetentionScope, page, requireParent, toRecord, type MemoryContext } from './common.js';
import { memoryInboundListQueries } from './inbound-list.js';
import { memoryInboundPostLog } from './inbound-post-log.js';
import type { InboundDomainRow, InboundMessageRow, InboundRouteRow } from './rows.js';
import type { TableRows } from './tables.js';

/** The enabled domain `domainId` of `subAccountId`, if its domain row still exists (as the schema's cascade). */
const ownedDomain = (tables: TableRows, subAccountId: number, domainId: number): InboundDomainRow | undefined => {
  const row = tables.inboundDomains.get(domainId);
  return row?.subAccountId === subAccountId && tables.domains.has(domainId) ? row : undefined;
};

const ownedRoute = (tables: TableRows, subAccountId: number, id: number): InboundRouteRow | undefined => {
  const row = tables.inboundRoutes.get(id);
  return row?.subAccountId === subAccountId ? row : undefined;
};

/** Whether `subAccountId` receives on the domain named `name`. */
const receivesOn = (tables: TableRows, subAccountId: number, name: string): boolean =>
  [...tables.inboundDomains.values()].some((d) => d.subAccountId === subAccountId && d.name === name);

const patternTaken = (tables: TableRows, subAccountId: number, pattern: string, exceptId: number): boolean =>
  [...tables.inboundRoutes.values()].some(
    (r) => r.subAccountId === subAccountId && r.pattern === pattern && r.id !== exceptId,
  );

/** A message as callers get it: the raw bytes copied into a Buffer of their own. */
const asMessage = (row: InboundMessageRow): InboundMessageRecord => {
  const { key: _key, raw, ...fields } = row;
  return { ...structuredClone(fields), raw: raw === null ? null : Buffer.from(raw) };
};

const newestFirst = (a: InboundMessageRow, b: InboundMessageRow) =>
  a.receivedAt === b.receivedAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.receivedAt < b.receivedAt ? 1 : -1;

/** {@link InboundStore} of the in-memory store. */
export function memoryInboundStore(ctx: MemoryContext): InboundStore {
  const routesOf = (tables: TableRows, subAccountId: number, search: string | undefined) =>
    [...tables.inboundRoutes.values()].filter((r) => r.subAccountId === subAccountId && contains(r.pattern, search));
  return {
    ...memoryInboundListQueries(ctx),
    ...memoryInboundPostLog(ctx),
    enableDomain: (subAccountId, domainId, at) =>
      ctx.write((tables) => {
        const domain = tables.domains.get(domainId);
        if (domain?.subAccountId !== subAccountId) return failure('not-found');
        const existing = tables.inboundDomains.get(domainId);
        if (existing) return success<InboundDomainRecord>(toRecord(existing));
        const subAccount = tables.subAccounts.get(subAccountId);
        requireParent(subAccount !== undefined, `sub-account ${subAccountId}`);
        const row: InboundDomainRow = {
          key: domainId,
          domainId,
          accountId: subAccount!.accountId,
          subAccountId,
          name: domain.name,
          enabledAt: at,
          mxVerified: false,
          mxFailureReason: '',
          mxCheckedAt: 0n,
        };
        tables.inboundDomains.set(domainId, row);
        return success<InboundDomainRecord>(toRecord(row));
      }),

    disableDomain: (subAccountId, domainId) =>
      ctx.write((tables) =>
        ownedDomain(tables, subAccountId, domainId) ? tables.inboundDomains.delete(domainId) : false,
      ),

    getDomain: (subAccountId, domainId) =>
      ctx.read((tables) => {
        const row = ownedDomain(tables, subAccountId, domainId);
        return row ? toRecord(row) : null;
      }),

    listDomains: (subAccountId) =>
      ctx.read((tables) =>
        [...tables.inboundDomains.values()]
          .filter((d) => d.subAccountId === subAccountId && tables.domains.has(d.domainId))
          .sort((a, b) => a.domainId - b.domainId)
          .map((row) => toRecord(row)),
      ),

    receivingDomain: (name) =>
      ctx.read((tables) => {
        const wanted = normalizeName(name);
        const found = [...tables.inboundDomains.values()]
          .filter((d) => d.name === wanted && tables.domains.has(d.domainId))
          .sort((a, b) => a.domainId - b.domainId)[0];
        return found ? toRecord(found) : null;
      }),

    setMxCheck: (domainId, check) =>
      ctx.write((tables) => {
        const row = tables.inboundDomains.get(domainId);
        if (!row) return;
        tables.inboundDomains.set(domainId, {
          ...row,
          mxVerified: check.verified,
          mxFailureReason: check.verified ? '' : check.reason,
          mxCheckedAt: check.at,
        });
      }),

    createRoute: (input) =>
      ctx.write((tables) => {
        requireParent(tables.subAccounts.has(input.subAccountId), `sub-account ${input.subAccountId}`);
        if (patternTaken(tables, input.subAccountId, input.pattern, 0)) return failure('duplicate-pattern');
        if (!receivesOn(tables, input.subAccountId, input.domain)) return failure('domain-not-receiving');
        const id = ctx.nextId('inboundRoutes');
        const row: InboundRouteRow = { key: id, id, ...structuredClone(input), updated: input.created };
        tables.inboundRoutes.set(id, row);
        return success<InboundRouteRecord>(toRecord(row));
      }),

    getRoute: (subAccountId, id) =>
      ctx.read((tables) => {
        const row = ownedRoute(tables, subAccountId, id);
        return row ? toRecord(row) : null;
      }),

    listRoutes: (subAccountId, query) =>
      ctx.read((tables) => page(routesOf(tables, subAccountId, query.search), query).map((row) => toRecord(row))),

    countRoutes: (subAccountId, search) => ctx.read((tables) => routesOf(tables, subAccountId, search).length),

    updateRoute: (subAccountId, id, patch) =>
      ctx.write((tables) => {
        const row = ownedRoute(tables, subAccountId, id);
        if (!row) return failure('not-found');
        const changes = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
        const next: InboundRouteRow = { ...row, ...structuredClone(changes) };
        if (patternTaken(tables, subAccountId, next.pattern, id)) return failure('duplicate-pattern');
        if (!receivesOn(tables, subAccountId, next.domain)) return failure('domain-not-receiving');
        tables.inboundRoutes.set(id, next);
        return success<InboundRouteRecord>(toRecord(next));
      }),

    deleteRoute: (subAccountId, id) =>
      ctx.write((tables) => {
        const row = ownedRoute(tables, subAccountId, id);
        if (!row) return null;
        tables.inboundRoutes.delete(id);
        // As the schema's ON DELETE SET NULL: the messages stay, without their route.
        for (const message of [...tables.inboundMessages.values()])
          if (message.routeId === id) tables.inboundMessages.set(message.key, { ...message, routeId: null });
        return toRecord(row);
      }),

    routesForDomain: (domain) =>
      ctx.read((tables) =>
        [...tables.inboundRoutes.values()]
          .filter((r) => r.domain === domain && receivesOn(tables, r.subAccountId, domain))
          .sort((a, b) => a.id - b.id)
          .map((row) => toRecord(row)),
      ),

    insertMessage: (message) =>
      ctx.write((tables) => {
        requireParent(tables.subAccounts.has(message.subAccountId), `sub-account ${message.subAccountId}`);
        if (tables.inboundMessages.has(message.id))
          throw new Error(`memory store: duplicate inbound message ${message.id}`);
        const { raw, ...fields } = message;
        tables.inboundMessages.set(message.id, {
          key: message.id,
          ...structuredClone(fields),
          raw: raw === null ? null : Buffer.from(raw),
        });
      }),

    getMessage: (subAccountId, id) =>
      ctx.read((tables) => {
        const row = tables.inboundMessages.get(id);
        return row?.subAccountId === subAccountId ? asMessage(row) : null;
      }),

    listMessages: (subAccountId, query) =>
      ctx.read((tables) =>
        [...tables.inboundMessages.values()]
          .filter((m) => m.subAccountId === subAccountId)
          .filter((m) => query.routeId === undefined || m.routeId === query.routeId)
          .filter(
            (m) =>
              query.search === undefined || [m.from, m.subject, m.rcptTo].some((text) => contains(text, query.search)),
          )
          .sort(newestFirst)
          .slice(query.offset, query.offset + query.limit)
          .map(asMessage),
      ),

    setMessageStatus: (id, status, detail, updated) =>
      ctx.write((tables) => {
        const row = tables.inboundMessages.get(id);
        if (row) tables.inboundMessages.set(id, { ...row, status, detail, updated });
      }),

    deleteMessagesBefore: (before, limit, scope) =>
      ctx.write((tables) => {
        const old = [...tables.inboundMessages.values()]
          .filter((m) => m.receivedAt < before && inRetentionScope(m, scope))
          .sort((a, b) => -newestFirst(a, b))
          .slice(0, Math.max(0, limit));
        const gone = new Set(old.map((row) => row.id));
        for (const row of old) tables.inboundMessages.delete(row.key);
        // As the schema's ON DELETE CASCADE: the post log goes with its message.
        for (const attempt of [...tables.inboundPostAttempts.values()])
          if (gone.has(attempt.messageId)) tables.inboundPostAttempts.delete(attempt.key);
        return old.length;
      }),
  };
}
