import { cancelBatch, cancelMessage, cancelResultWireSchema } from '../../scheduling/cancel.js';
import { route } from '../route.js';

/**
 * Cancelling scheduled sends (docs/sending.md, "Scheduled sending"): one message, or a whole send
 * request by the `batchId` its scheduled send answered with. The batch route has one segment more,
 * so it never meets the message route.
 */
export const emailCancelRoutes = [
  route({
    method: 'DELETE',
    path: '/subaccount/email/:message_id',
    auth: 'subaccount',
    response: cancelResultWireSchema,
    handle: async ({ ctx, principal, params }) => ({
      body: await cancelMessage(ctx, principal.subAccount, params.message_id ?? ''),
    }),
  }),
  route({
    method: 'DELETE',
    path: '/subaccount/email/batch/:batch_id',
    auth: 'subaccount',
    response: cancelResultWireSchema,
    handle: async ({ ctx, principal, params }) => ({
      body: await cancelBatch(ctx, principal.subAccount, params.batch_id ?? ''),
    }),
  }),
];
