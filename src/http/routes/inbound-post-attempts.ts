import { z } from 'zod';
import {
  inboundPostAttemptQuerySchema,
  inboundPostAttemptToWire,
  inboundPostAttemptWireSchema,
  listInboundPostAttempts,
} from '../../inbound/post-attempts.js';
import { route, type AnyRoute } from '../route.js';

/**
 * `/subaccount/inbound/message/{id}/attempt` (mailplane's addition, docs/inbound.md): the POSTs of a
 * received message to its route's webhook, newest first, as `/account/webhook/{id}/delivery` lists
 * an event webhook's.
 */
export const inboundPostAttemptRoutes: AnyRoute[] = [
  route({
    method: 'GET',
    path: '/subaccount/inbound/message/:inbound_message_id/attempt',
    auth: 'subaccount',
    response: z.array(inboundPostAttemptWireSchema),
    query: inboundPostAttemptQuerySchema,
    handle: async ({ ctx, principal, params, query }) => {
      const log = await listInboundPostAttempts(ctx, principal.subAccount.id, params.inbound_message_id!, query);
      return { body: log.map(inboundPostAttemptToWire) };
    },
  }),
];
