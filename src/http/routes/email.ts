import { acceptSend } from '../../sending/accept.js';
import { messageView, messageViewSchema } from '../../activity/message-view.js';
import { sendResponseWireSchema } from '../../sending/message-wire.js';
import { sendRequestSchema, type SendRequest } from '../../sending/request.js';
import { templateSendRequest, templateSendRequestSchema } from '../../sending/template-send.js';
import { route } from '../route.js';
import { parseOrThrow } from '../validation.js';
import { IDEMPOTENT_SEND_HEADERS, idempotentSend } from '../idempotent-send.js';

/** Every envelope recipient of a send: each `to` entry and its cc and bcc copies. */
function recipientCount<R extends Pick<SendRequest, 'to'>>(request: R): number {
  let count = 0;
  for (const recipient of request.to) count += 1 + (recipient.cc?.length ?? 0) + (recipient.bcc?.length ?? 0);
  return count;
}

/** Sending email, and reading what was sent. */
export const emailRoutes = [
  route({
    method: 'POST',
    path: '/subaccount/email',
    auth: 'subaccount',
    response: sendResponseWireSchema,
    body: sendRequestSchema,
    // The send endpoint's rate limit counts recipients, so one large request weighs as much as many small ones.
    rateLimit: { allowance: 'recipients', cost: recipientCount },
    // An `Idempotency-Key` makes a retried send answer the first response instead of sending again.
    ...IDEMPOTENT_SEND_HEADERS,
    handle: (input) =>
      idempotentSend(input, (idempotency) =>
        acceptSend(input.ctx, input.principal.subAccount, input.body, { idempotency }),
      ),
  }),
  route({
    // The vendor's sendEmailWithTemplate: the stored template makes the plain request, sent as one (docs/templates.md).
    method: 'POST',
    path: '/subaccount/email/template',
    auth: 'subaccount',
    response: sendResponseWireSchema,
    body: templateSendRequestSchema,
    rateLimit: { allowance: 'recipients', cost: recipientCount },
    ...IDEMPOTENT_SEND_HEADERS,
    handle: async (input) => {
      const { request, template } = await templateSendRequest(input.ctx, input.principal.subAccount.id, input.body);
      const plain = parseOrThrow(sendRequestSchema, request, 'body');
      // The same Idempotency-Key rule as the plain send; the key's hash is of this route and this body.
      return idempotentSend(input, (idempotency) =>
        acceptSend(input.ctx, input.principal.subAccount, plain, { template, idempotency }),
      );
    },
  }),
  route({
    method: 'GET',
    path: '/account/message/:message_id',
    auth: 'account',
    response: messageViewSchema,
    handle: async ({ ctx, principal, params }) => ({
      body: await messageView(ctx, { accountId: principal.account.id }, params.message_id ?? ''),
    }),
  }),
  route({
    // The same answer for a sub-account's key, of its own messages only: another sub-account's id is unknown.
    method: 'GET',
    path: '/subaccount/message/:message_id',
    auth: 'subaccount',
    response: messageViewSchema,
    handle: async ({ ctx, principal: { subAccount }, params }) => ({
      body: await messageView(
        ctx,
        { accountId: subAccount.accountId, subAccountId: subAccount.id },
        params.message_id ?? '',
      ),
    }),
  }),
];
