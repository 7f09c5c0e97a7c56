import { z } from 'zod';
import {
  accountInboundQuerySchema,
  inboundItem,
  listAccountInbound,
  listSubAccountInbound,
  subAccountInboundQuerySchema,
} from '../../activity/inbound-list.js';
import { inboundMessageItemWireSchema } from '../../inbound/message-wire.js';
import { rawInboundMessage, redeliverInboundMessage } from '../../inbound/messages-api.js';
import { route, type AnyRoute } from '../route.js';
import { StreamedBody } from '../streamed-body.js';

/** The bytes as one chunk of a streamed answer: a raw message may hold 8-bit text in no charset. */
async function* oneChunk(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/**
 * `/subaccount/inbound/message`: the mail the calling sub-account received (docs/inbound.md,
 * "Received messages"), and `/account/inbound/message`: every sub-account's (docs/activity.md,
 * "Received messages"). The path's id is a UUID, so it is passed on as text: an unknown one is a 406.
 */
export const inboundMessageRoutes: AnyRoute[] = [
  route({
    method: 'GET',
    path: '/account/inbound/message',
    auth: 'account',
    response: z.object({ items: z.array(inboundMessageItemWireSchema), nextCursor: z.string().nullable() }),
    query: accountInboundQuerySchema,
    handle: async ({ ctx, principal, query }) => ({
      body: await listAccountInbound(ctx, principal.account.id, query),
    }),
  }),
  route({
    method: 'GET',
    path: '/account/inbound/message/:inbound_message_id',
    auth: 'account',
    response: inboundMessageItemWireSchema,
    handle: async ({ ctx, principal, params }) => ({
      body: await inboundItem(ctx, { accountId: principal.account.id }, params.inbound_message_id!),
    }),
  }),
  route({
    method: 'GET',
    path: '/subaccount/inbound/message',
    auth: 'subaccount',
    response: z.array(inboundMessageItemWireSchema),
    query: subAccountInboundQuerySchema,
    handle: async ({ ctx, principal, query }) => ({
      body: await listSubAccountInbound(ctx, principal.subAccount, query),
    }),
  }),
  route({
    method: 'GET',
    path: '/subaccount/inbound/message/:inbound_message_id',
    auth: 'subaccount',
    response: inboundMessageItemWireSchema,
    handle: async ({ ctx, principal: { subAccount }, params }) => ({
      body: await inboundItem(
        ctx,
        { accountId: subAccount.accountId, subAccountId: subAccount.id },
        params.inbound_message_id!,
      ),
    }),
  }),
  route({
    method: 'GET',
    path: '/subaccount/inbound/message/:inbound_message_id/raw',
    auth: 'subaccount',
    mediaType: 'message/rfc822',
    response: z.string().meta({ description: 'The message as received, byte for byte.' }),
    alsoAnswers: ['410'],
    handle: async ({ ctx, principal, params }) => {
      const raw = await rawInboundMessage(ctx, principal.subAccount.id, params.inbound_message_id!);
      return {
        body: new StreamedBody('message/rfc822', oneChunk(raw), {
          'content-disposition': `attachment; filename="${params.inbound_message_id!.replace(/[^\w-]/g, '')}.eml"`,
        }),
      };
    },
  }),
  route({
    method: 'POST',
    path: '/subaccount/inbound/message/:inbound_message_id/redeliver',
    auth: 'subaccount',
    alsoAnswers: ['410', '422'],
    response: inboundMessageItemWireSchema,
    handle: async ({ ctx, principal: { subAccount }, params }) => {
      const { id } = await redeliverInboundMessage(ctx, subAccount.id, params.inbound_message_id!);
      return { body: await inboundItem(ctx, { accountId: subAccount.accountId, subAccountId: subAccount.id }, id) };
    },
  }),
];
