/**
 * A sent message as `GET /account/message/{id}` and `GET /subaccount/message/{id}` answer it: the
 * reference's `Message` with its events, its `renderedSubject`, and mailplane's `replies`.
 */
import { z } from 'zod';
import { NotFoundError } from '../errors.js';
import { isUuid } from '../model/ids.js';
import { messageToWire, messageWireSchema } from '../sending/message-wire.js';
import { repliesTo, replyWireSchema } from './inbound-list.js';
import { renderedSubject, type RenderedSubjectDeps } from './rendered-subject.js';
import type { MailplaneStore } from '../store/index.js';

/** What this module uses of the instance: what it calls uses ({@link RenderedSubjectDeps}), and the fields below. */
export interface MessageViewDeps extends RenderedSubjectDeps {
  readonly store: MailplaneStore;
}

/**
 * A message with its events, its `renderedSubject`, and the received messages threaded to it
 * (docs/inbound.md, "Replies").
 */
export const messageViewSchema = messageWireSchema.extend({
  renderedSubject: z.string(),
  replies: z.array(replyWireSchema).meta({
    description:
      'The received messages that answer this one (their `In-Reply-To` or `References` names it), newest first, at most 20; ' +
      'a sub-account key sees those its own domains received. mailplane’s addition.',
  }),
});

/**
 * The sent message `id` of the account, or of its sub-account `subAccountId` when given, with its
 * events, rendered subject and replies; throws 406 MESSAGE_NOT_FOUND for any other id.
 */
export async function messageView(
  ctx: MessageViewDeps,
  scope: { accountId: number; subAccountId?: number },
  id: string,
): Promise<z.output<typeof messageViewSchema>> {
  const found = isUuid(id) ? await ctx.store.messages.get(scope.accountId, id.toLowerCase()) : null;
  if (!found || (scope.subAccountId !== undefined && found.message.subAccountId !== scope.subAccountId))
    throw new NotFoundError(
      'MESSAGE_NOT_FOUND',
      `no message with id ${id} in this ${scope.subAccountId === undefined ? 'account' : 'sub-account'}`,
    );
  const [events, subject, replies] = await Promise.all([
    ctx.store.messages.listEvents(found.message.id),
    renderedSubject(ctx, found.message, found.batch),
    repliesTo(ctx, scope, found.message.id),
  ]);
  return { ...messageToWire(found.message, found.batch, events), renderedSubject: subject, replies };
}
