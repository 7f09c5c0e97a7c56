import { z } from 'zod';
import {
  alertToWire,
  alertWireSchema,
  createAlertBody,
  createdAlertWireSchema,
  updateAlertBody,
} from '../../alerts/alert-wire.js';
import { countAlerts, createAlert, deleteAlert, getAlert, listAlerts, updateAlert } from '../../alerts/alerts.js';
import { incidentToWire, incidentWireSchema, IncidentStatus } from '../../alerts/incident-wire.js';
import { getIncident, listIncidents, resolveIncident } from '../../alerts/incidents.js';
import { parseResourceId } from '../../model/ids.js';
import { listQuerySchema } from '../../model/paging.js';
import { freeTextSchema } from '../../model/text.js';
import { deletedSchema } from '../../model/wire-schemas.js';
import { route, type AnyRoute } from '../route.js';

/** The legacy `CountStat`. */
const countSchema = z.object({ count: z.int() });

/** `limit`/`offset`/`search` (in the summary) of the incident list and the legacy `status` filter (0 open, 1 resolved). */
const incidentQuery = listQuerySchema.extend({
  status: z
    .enum([String(IncidentStatus.Open), String(IncidentStatus.Resolved)], { error: 'must be 0 (open) or 1 (resolved)' })
    .optional(),
});

/** The operator's note on the incident's timeline (mailplane's addition). */
const resolveBody = z.strictObject({ note: freeTextSchema(500).optional() }).optional();

/** `/account/alert`: the alert rules of the calling account (docs/reputation.md). */
export const alertRoutes: AnyRoute[] = [
  route({
    method: 'POST',
    path: '/account/alert',
    auth: 'account',
    response: createdAlertWireSchema,
    body: createAlertBody,
    handle: async ({ ctx, principal, body }) => {
      const alert = await createAlert(ctx, principal.account.id, body);
      // 200 and `success` as the legacy document's AlertResponse.
      return { body: { ...alertToWire(alert), success: true as const } };
    },
  }),
  route({
    method: 'GET',
    path: '/account/alert',
    auth: 'account',
    response: z.array(alertWireSchema),
    query: listQuerySchema,
    handle: async ({ ctx, principal, query }) => ({
      body: (await listAlerts(ctx, principal.account.id, query)).map(alertToWire),
    }),
  }),
  route({
    method: 'GET',
    path: '/account/alert/count',
    auth: 'account',
    response: countSchema,
    query: listQuerySchema.pick({ search: true }),
    handle: async ({ ctx, principal, query }) => ({
      body: { count: await countAlerts(ctx, principal.account.id, query.search) },
    }),
  }),
  route({
    method: 'GET',
    path: '/account/alert/:alert_id',
    auth: 'account',
    response: alertWireSchema,
    handle: async ({ ctx, principal, params }) => ({
      body: alertToWire(await getAlert(ctx, principal.account.id, parseResourceId(params.alert_id))),
    }),
  }),
  route({
    method: 'PUT',
    path: '/account/alert/:alert_id',
    auth: 'account',
    response: alertWireSchema,
    body: updateAlertBody,
    handle: async ({ ctx, principal, params, body }) => ({
      body: alertToWire(await updateAlert(ctx, principal.account.id, parseResourceId(params.alert_id), body)),
    }),
  }),
  route({
    method: 'DELETE',
    path: '/account/alert/:alert_id',
    auth: 'account',
    response: deletedSchema,
    handle: async ({ ctx, principal, params }) => {
      const deleted = await deleteAlert(ctx, principal.account.id, parseResourceId(params.alert_id));
      return { body: { id: deleted.id, message: `Alert (${deleted.name}) has been deleted successfully.` } };
    },
  }),
];

/** `/account/incident`: what the rules and the automatic protections opened (docs/reputation.md). */
export const incidentRoutes: AnyRoute[] = [
  route({
    method: 'GET',
    path: '/account/incident',
    auth: 'account',
    response: z.array(incidentWireSchema),
    query: incidentQuery,
    handle: async ({ ctx, principal, query }) => {
      const state = query.status === undefined ? undefined : query.status === '0' ? 'open' : 'resolved';
      const incidents = await listIncidents(ctx, principal.account.id, {
        limit: query.limit,
        offset: query.offset,
        ...(state && { state }),
        ...(query.search !== undefined && { search: query.search }),
      });
      return { body: incidents.map(incidentToWire) };
    },
  }),
  route({
    method: 'GET',
    path: '/account/incident/:incident_id',
    auth: 'account',
    response: incidentWireSchema,
    handle: async ({ ctx, principal, params }) => ({
      body: incidentToWire(await getIncident(ctx, principal.account.id, parseResourceId(params.incident_id))),
    }),
  }),
  // mailplane's addition: the operator closes an incident (a resolved one stays as it was).
  route({
    method: 'POST',
    path: '/account/incident/:incident_id/resolve',
    auth: 'account',
    response: incidentWireSchema,
    body: resolveBody,
    handle: async ({ ctx, principal, params, body }) => {
      const id = parseResourceId(params.incident_id);
      return { body: incidentToWire(await resolveIncident(ctx, principal.account.id, id, body?.note ?? '')) };
    },
  }),
];
