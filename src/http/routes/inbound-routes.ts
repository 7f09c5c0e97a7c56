import { z } from 'zod';
import { domainWireSchema } from '../../domain/domain-wire.js';
import { receivingService } from '../../domain/receiving.js';
import {
  createRouteBody,
  routeToWire,
  routeWireSchema,
  routeWithSecretWireSchema,
  updateRouteBody,
} from '../../inbound/route-wire.js';
import {
  countRoutes,
  createRoute,
  deleteRoute,
  getRoute,
  listRoutes,
  updateRoute,
  type RouteWithSecret,
} from '../../inbound/routes-api.js';
import { parseResourceId } from '../../model/ids.js';
import { listQuerySchema } from '../../model/paging.js';
import { deletedSchema } from '../../model/wire-schemas.js';
import { route, type AnyRoute } from '../route.js';

/** The legacy `CountStat`. */
const countSchema = z.object({ count: z.int() });

/** A `webhook` route's signing secret, in the answers that make one: shown that once. */
const ROUTE_SECRET = { names: ['secret'], origin: 'created' } as const;

/** The route and, when this request made one, its signing secret. */
const withSecret = ({ route: made, secret }: RouteWithSecret) => ({
  ...routeToWire(made),
  ...(secret !== undefined && { secret }),
});

/** `/subaccount/domain/{id}/inbound`: receiving on a sending domain (docs/inbound.md). */
const receivingRoutes: AnyRoute[] = (['POST', 'DELETE'] as const).map((method) =>
  route({
    method,
    path: '/subaccount/domain/:domain_id/inbound',
    auth: 'subaccount',
    response: domainWireSchema,
    handle: async ({ ctx, principal, params }) => {
      const act = method === 'POST' ? receivingService.enable : receivingService.disable;
      return { body: await act(ctx, principal.subAccount.id, parseResourceId(params.domain_id)) };
    },
  }),
);

/** `/subaccount/route`: the routes of the calling sub-account's inbound mail (docs/inbound.md). */
export const inboundRoutes: AnyRoute[] = [
  ...receivingRoutes,
  route({
    method: 'POST',
    path: '/subaccount/route',
    auth: 'subaccount',
    response: routeWithSecretWireSchema,
    successStatus: 201,
    secrets: ROUTE_SECRET,
    body: createRouteBody,
    handle: async ({ ctx, principal, body }) => {
      const owner = { accountId: principal.subAccount.accountId, subAccountId: principal.subAccount.id };
      return { body: withSecret(await createRoute(ctx, owner, body)) };
    },
  }),
  route({
    method: 'GET',
    path: '/subaccount/route',
    auth: 'subaccount',
    response: z.array(routeWireSchema),
    query: listQuerySchema,
    handle: async ({ ctx, principal, query }) => ({
      body: (await listRoutes(ctx, principal.subAccount.id, query)).map(routeToWire),
    }),
  }),
  route({
    method: 'GET',
    path: '/subaccount/route/count',
    auth: 'subaccount',
    response: countSchema,
    query: listQuerySchema.pick({ search: true }),
    handle: async ({ ctx, principal, query }) => ({
      body: { count: await countRoutes(ctx, principal.subAccount.id, query.search) },
    }),
  }),
  route({
    method: 'GET',
    path: '/subaccount/route/:route_id',
    auth: 'subaccount',
    response: routeWireSchema,
    handle: async ({ ctx, principal, params }) => ({
      body: routeToWire(await getRoute(ctx, principal.subAccount.id, parseResourceId(params.route_id))),
    }),
  }),
  route({
    method: 'PUT',
    path: '/subaccount/route/:route_id',
    auth: 'subaccount',
    response: routeWithSecretWireSchema,
    secrets: ROUTE_SECRET,
    body: updateRouteBody,
    handle: async ({ ctx, principal, params, body }) => ({
      body: withSecret(await updateRoute(ctx, principal.subAccount.id, parseResourceId(params.route_id), body)),
    }),
  }),
  route({
    method: 'DELETE',
    path: '/subaccount/route/:route_id',
    auth: 'subaccount',
    response: deletedSchema,
    handle: async ({ ctx, principal, params }) => {
      const deleted = await deleteRoute(ctx, principal.subAccount.id, parseResourceId(params.route_id));
      return { body: { id: deleted.id, message: `Route (${deleted.pattern}) has been deleted successfully.` } };
    },
  }),
];
