import { z } from 'zod';
import {
  replaceShapingRules,
  resumeShaping,
  shapingRulesView,
  shapingRulesWireSchema,
  shapingStatesView,
  shapingStateWireSchema,
  type ShapingViewDeps,
} from '../../shaping/views.js';
import { MAX_LIST_LIMIT, queryInt } from '../../model/paging.js';
import { plainTextSchema } from '../../model/text.js';
import { route } from '../route.js';
import type { DeliveryRouting } from '../../delivery/route.js';
import type { Clock } from '../../model/time.js';
import type { MailplaneStore } from '../../store/index.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface ShapingRoutesDeps {
  readonly store: MailplaneStore;
  readonly clock: Clock;
  readonly routing: DeliveryRouting;
}

/** The rules as a body: checked rule by rule by the shaping service, for codes of its own. */
const rulesBody = z.strictObject({ rules: z.array(z.unknown()).max(10_000) });
const statesQuery = z.object({
  limit: queryInt(1)
    .optional()
    .transform((v) => Math.min(v ?? 100, MAX_LIST_LIMIT)),
});
// A key names a source and a destination (`ip:7|provider:gmail`): never a control character, and
// PostgreSQL cannot even compare a text holding U+0000 (the query fails), so one is refused here.
const resumeBody = z.strictObject({ key: plainTextSchema(600).pipe(z.string().min(1)) });

const viewDeps = (ctx: ShapingRoutesDeps): ShapingViewDeps => ({
  store: ctx.store,
  shaping: ctx.routing.shaping,
  nowMs: ctx.clock.now(),
});

/** `/account/shaping`: traffic-shaping rules and the state of each source × destination (docs/shaping.md). */
export const shapingRoutes = [
  route({
    method: 'GET',
    path: '/account/shaping/rule',
    auth: 'account',
    response: shapingRulesWireSchema,
    handle: async ({ ctx, principal }) => ({ body: await shapingRulesView(viewDeps(ctx), principal.account.id) }),
  }),
  route({
    method: 'PUT',
    path: '/account/shaping/rule',
    auth: 'account',
    response: shapingRulesWireSchema,
    body: rulesBody,
    handle: async ({ ctx, principal, body }) => ({
      body: await replaceShapingRules(viewDeps(ctx), principal.account.id, body.rules),
    }),
  }),
  route({
    method: 'GET',
    path: '/account/shaping/state',
    auth: 'account',
    response: z.array(shapingStateWireSchema),
    query: statesQuery,
    handle: async ({ ctx, principal, query }) => ({
      body: await shapingStatesView(viewDeps(ctx), principal.account.id, query.limit),
    }),
  }),
  route({
    method: 'POST',
    path: '/account/shaping/state/resume',
    auth: 'account',
    response: shapingStateWireSchema,
    body: resumeBody,
    handle: async ({ ctx, principal, body }) => ({
      body: await resumeShaping(viewDeps(ctx), principal.account.id, body.key),
    }),
  }),
];
