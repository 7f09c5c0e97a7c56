import { isResourceId } from '../../model/ids.js';
import { failure, success } from '../../store/outcome.js';
import type { AlertEntityType, AlertStore, IncidentAction, IncidentStore } from '../../store/index.js';
import { contains, page, requireParent, toRecord, type MemoryContext } from './common.js';
import type { AlertRow, IncidentRow } from './rows.js';
import type { TableRows } from './tables.js';

/** Whether `entityId` names an entity of `type` of `accountId` (as the Kysely store's `entityOfAccount`). */
function entityOfAccount(tables: TableRows, accountId: number, type: AlertEntityType, entityId: number): boolean {
  if (!isResourceId(entityId)) return false;
  switch (type) {
    case 'account':
      return entityId === accountId;
    case 'subAccount':
      return tables.subAccounts.get(entityId)?.accountId === accountId;
    case 'ip':
      return tables.ips.get(entityId)?.accountId === accountId;
    case 'ipPool':
      return tables.ipPools.get(entityId)?.accountId === accountId;
    case 'domain': {
      const domain = tables.domains.get(entityId);
      return domain !== undefined && tables.subAccounts.get(domain.subAccountId)?.accountId === accountId;
    }
    default:
      return false;
  }
}

const ownedAlert = (tables: TableRows, accountId: number, id: number): AlertRow | undefined => {
  const row = tables.alerts.get(id);
  return row?.accountId === accountId ? row : undefined;
};

/** {@link AlertStore} of the in-memory store. */
export function memoryAlertStore(ctx: MemoryContext): AlertStore {
  const matching = (tables: TableRows, accountId: number, search: string | undefined) =>
    [...tables.alerts.values()].filter((a) => a.accountId === accountId && contains(a.name, search));
  return {
    create: (input) =>
      ctx.write((tables) => {
        requireParent(tables.accounts.has(input.accountId), `account ${input.accountId}`);
        if (!entityOfAccount(tables, input.accountId, input.entityType, input.entityId)) {
          return failure('entity-not-found');
        }
        const id = ctx.nextId('alerts');
        const row: AlertRow = { key: id, id, ...structuredClone(input), updated: input.created };
        tables.alerts.set(id, row);
        return success(toRecord(row));
      }),

    get: (accountId, id) =>
      ctx.read((tables) => {
        const row = ownedAlert(tables, accountId, id);
        return row ? toRecord(row) : null;
      }),

    list: (accountId, query) =>
      ctx.read((tables) => page(matching(tables, accountId, query.search), query).map((row) => toRecord(row))),

    count: (accountId, search) => ctx.read((tables) => matching(tables, accountId, search).length),

    update: (accountId, id, patch) =>
      ctx.write((tables) => {
        const row = ownedAlert(tables, accountId, id);
        if (!row) return failure('not-found');
        const changes = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
        const next: AlertRow = { ...row, ...structuredClone(changes) };
        const entityChanged = patch.entityType !== undefined || patch.entityId !== undefined;
        if (entityChanged && !entityOfAccount(tables, accountId, next.entityType, next.entityId)) {
          return failure('entity-not-found');
        }
        tables.alerts.set(id, next);
        return success(toRecord(next));
      }),

    delete: (accountId, id) =>
      ctx.write((tables) => {
        const row = ownedAlert(tables, accountId, id);
        if (!row) return null;
        tables.alerts.delete(id);
        // As the schema's ON DELETE SET NULL: the incidents keep their snapshot of the rule.
        for (const incident of [...tables.incidents.values()])
          if (incident.alertId === id) tables.incidents.set(incident.key, { ...incident, alertId: null });
        return toRecord(row);
      }),

    listActive: (afterId, limit) =>
      ctx.read((tables) =>
        [...tables.alerts.values()]
          .filter((a) => a.active && a.id > afterId)
          .sort((a, b) => a.id - b.id)
          .slice(0, limit)
          .map((row) => toRecord(row)),
      ),

    protection: (accountId) =>
      ctx.read((tables) =>
        [...tables.protectionSettings.values()]
          .filter((row) => row.accountId === accountId)
          .sort((a, b) => a.subAccountId - b.subAccountId)
          .map((row) => toRecord(row)),
      ),

    setProtection: (accountId, subAccountId, settings, updated) =>
      ctx.write((tables) => {
        requireParent(tables.accounts.has(accountId), `account ${accountId}`);
        if (subAccountId !== 0 && tables.subAccounts.get(subAccountId)?.accountId !== accountId) return false;
        const key = `${accountId}:${subAccountId}`;
        if (settings === null) tables.protectionSettings.delete(key);
        else
          tables.protectionSettings.set(key, {
            key,
            accountId,
            subAccountId,
            settings: structuredClone(settings),
            updated,
          });
        return true;
      }),
  };
}

const ownedIncident = (tables: TableRows, accountId: number, id: number): IncidentRow | undefined => {
  const row = tables.incidents.get(id);
  return row?.accountId === accountId ? row : undefined;
};

const openOf = (tables: TableRows, accountId: number, topic: string): IncidentRow | undefined =>
  [...tables.incidents.values()].find((i) => i.accountId === accountId && i.topic === topic && i.state === 'open');

const boundedAction = (action: IncidentAction): IncidentAction => ({ ...action, detail: action.detail.slice(0, 500) });

/** {@link IncidentStore} of the in-memory store. */
export function memoryIncidentStore(ctx: MemoryContext): IncidentStore {
  return {
    open: (input) =>
      ctx.write((tables) => {
        requireParent(tables.accounts.has(input.accountId), `account ${input.accountId}`);
        const existing = openOf(tables, input.accountId, input.topic);
        if (existing) return { incident: toRecord(existing), opened: false };
        const id = ctx.nextId('incidents');
        const opened = boundedAction({
          at: input.started,
          action: 'opened',
          actor: 'mailplane',
          detail: input.summary,
        });
        const row: IncidentRow = {
          key: id,
          id,
          ...structuredClone(input),
          state: 'open',
          resolvedAt: null,
          resolvedBy: null,
          updated: input.started,
          clearSince: null,
          timeline: [opened],
        };
        tables.incidents.set(id, row);
        return { incident: toRecord(row), opened: true };
      }),

    get: (accountId, id) =>
      ctx.read((tables) => {
        const row = ownedIncident(tables, accountId, id);
        return row ? toRecord(row) : null;
      }),

    findOpen: (accountId, topic) =>
      ctx.read((tables) => {
        const row = openOf(tables, accountId, topic);
        return row ? toRecord(row) : null;
      }),

    list: (accountId, query) =>
      ctx.read((tables) =>
        [...tables.incidents.values()]
          .filter((i) => i.accountId === accountId && (query.state === undefined || i.state === query.state))
          .filter((i) => query.search === undefined || i.summary.toLowerCase().includes(query.search.toLowerCase()))
          .sort((a, b) => b.id - a.id)
          .slice(query.offset, query.offset + query.limit)
          .map((row) => toRecord(row)),
      ),

    addAction: (accountId, id, action) =>
      ctx.write((tables) => {
        const row = ownedIncident(tables, accountId, id);
        if (!row) return null;
        const next: IncidentRow = { ...row, updated: action.at, timeline: [...row.timeline, boundedAction(action)] };
        tables.incidents.set(id, next);
        return toRecord(next);
      }),

    resolve: (accountId, id, resolution) =>
      ctx.write((tables) => {
        const row = ownedIncident(tables, accountId, id);
        if (!row) return failure('not-found');
        if (row.state !== 'open') return failure('already-resolved');
        const actor = resolution.by === 'operator' ? 'operator' : 'mailplane';
        const resolved = boundedAction({ at: resolution.at, action: 'resolved', actor, detail: resolution.detail });
        const next: IncidentRow = {
          ...row,
          state: 'resolved',
          resolvedAt: resolution.at,
          resolvedBy: resolution.by,
          updated: resolution.at,
          clearSince: null,
          timeline: [...row.timeline, resolved],
        };
        tables.incidents.set(id, next);
        return success(toRecord(next));
      }),

    setClearSince: (accountId, id, since) =>
      ctx.write((tables) => {
        const row = ownedIncident(tables, accountId, id);
        if (row?.state !== 'open') return false;
        tables.incidents.set(id, { ...row, clearSince: since });
        return true;
      }),

    lastResolved: (accountId, topic) =>
      ctx.read((tables) => {
        const resolved = [...tables.incidents.values()]
          .filter((i) => i.accountId === accountId && i.topic === topic && i.resolvedAt !== null)
          .sort((a, b) => Number(b.resolvedAt! - a.resolvedAt!) || b.id - a.id);
        return resolved[0] ? toRecord(resolved[0]) : null;
      }),

    listOpen: (afterId, limit) =>
      ctx.read((tables) =>
        [...tables.incidents.values()]
          .filter((i) => i.state === 'open' && i.id > afterId)
          .sort((a, b) => a.id - b.id)
          .slice(0, limit)
          .map((row) => toRecord(row)),
      ),
  };
}
