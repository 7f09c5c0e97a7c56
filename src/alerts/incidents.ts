import { ForbiddenError, NotFoundError } from '../errors.js';
import { nowNs, type Clock } from '../model/time.js';
import type { IncidentListQuery, IncidentRecord, MailplaneStore } from '../store/index.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface IncidentsDeps {
  readonly store: MailplaneStore;
  readonly clock: Clock;
}

const notFound = (id: number | string) =>
  new NotFoundError('INCIDENT_NOT_FOUND', `no incident with id ${id} in this account`);

/** A page of the account's incidents, newest first, optionally of one state. */
export function listIncidents(
  ctx: IncidentsDeps,
  accountId: number,
  query: IncidentListQuery,
): Promise<IncidentRecord[]> {
  return ctx.store.incidents.list(accountId, query);
}

/** The incident `id` of the account; 406 `INCIDENT_NOT_FOUND` for another account's or a missing one. */
export async function getIncident(ctx: IncidentsDeps, accountId: number, id: number | null): Promise<IncidentRecord> {
  const record = id === null ? null : await ctx.store.incidents.get(accountId, id);
  if (!record) throw notFound(id ?? 'given');
  return record;
}

/**
 * The operator's close: resolved now, by `operator`, with the note on the timeline. An incident
 * already resolved is a 403 `INCIDENT_ALREADY_RESOLVED` and keeps its resolution.
 */
export async function resolveIncident(
  ctx: IncidentsDeps,
  accountId: number,
  id: number | null,
  note: string,
): Promise<IncidentRecord> {
  if (id === null) throw notFound('given');
  const outcome = await ctx.store.incidents.resolve(accountId, id, {
    at: nowNs(ctx.clock),
    by: 'operator',
    detail: note === '' ? 'resolved through the API' : note,
  });
  if (outcome.ok) return outcome.value;
  if (outcome.reason === 'not-found') throw notFound(id);
  throw new ForbiddenError('INCIDENT_ALREADY_RESOLVED', `incident ${id} is resolved already`);
}
