import { z } from 'zod';
import {
  inboundMessageQuerySchema,
  inboundMessageToWire,
  inboundMessageWireSchema,
} from '../../inbound/message-wire.js';
import {
  getInboundMessage,
  listInboundMessages,
  rawInboundMessage,
  redeliverInboundMessage,
} from '../../inbound/messages-api.js';
import { route, type AnyRoute } from '../route.js';
import { StreamedBody } from '../streamed-body.js';

/** The bytes as one chunk of a streamed answer: a raw message may hold 8-bit text in no charset. */
async function* oneChunk(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/**
 * `/subaccount/inbound/message`: the mail the calling sub-account received (docs/inbound.md,
 * "Received messages"). The path's id is a UUID, so it is passed on as text: an unknown one is a 406.
 */
export const inboundMessageRoutes: AnyRoute[] = [
  route({
    method: 'GET',
    path: '/subaccount/inbound/message',
    auth: 'subaccount',
    response: z.array(inboundMessageWireSchema),
    query: inboundMessageQuerySchema,
    handle: async ({ ctx, principal, query }) => ({
      body: (await listInboundMessages(ctx, principal.subAccount.id, query)).map(inboundMessageToWire),
    }),
  }),
  route({
    method: 'GET',
    path: '/subaccount/inbound/message/:inbound_message_id',
    auth: 'subaccount',
    response: inboundMessageWireSchema,
    handle: async ({ ctx, principal, params }) => ({
      body: inboundMessageToWire(await getInboundMessage(ctx, principal.subAccount.id, params.inbound_message_id!)),
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
    response: inboundMessageWireSchema,
    handle: async ({ ctx, principal, params }) => ({
      body: inboundMessageToWire(
        await redeliverInboundMessage(ctx, principal.subAccount.id, params.inbound_message_id!),
      ),
    }),
  }),
];
