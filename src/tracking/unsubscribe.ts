import type { MailplaneContext } from '../context.js';
import { msToNs } from '../model/time.js';
import { recordMessageEvent } from '../sending/events.js';
import { EventType, SuppressionType } from '../store/index.js';
import { verifyLinkToken } from './links.js';

/**
 * What an unsubscribe request did: `ok` with the address unsubscribed; `invalid` for a token that
 * is not valid or names no message; `gone` when the message's sub-account was deleted (its
 * suppression list went with it, and nothing can be sent from it any more).
 */
export type UnsubscribeResult = { ok: true; email: string; alreadyUnsubscribed: boolean } | { ok: false; reason: 'invalid' | 'gone' };

/**
 * Unsubscribes the recipient of the message a signed token names: the address joins the
 * suppression list of the message's sub-account (type unsubscribe), and the message gets one
 * Unsubscribed event, counted once however often the link is used. A cc or bcc copy is a message
 * of its own with its own token, so its link unsubscribes the copy's address.
 */
export async function unsubscribeByToken(ctx: MailplaneContext, token: string): Promise<UnsubscribeResult> {
  const messageId = verifyLinkToken(ctx, 'unsubscribe', token);
  if (messageId === null) return { ok: false, reason: 'invalid' };
  const found = await ctx.store.messages.getForDelivery(messageId);
  if (!found) return { ok: false, reason: 'invalid' };
  const { message, batch } = found;
  return ctx.store.transaction(async (store): Promise<UnsubscribeResult> => {
    const added = await store.suppressions.add(message.subAccountId, [
      { email: message.to.email, type: SuppressionType.Unsubscribe, smtpError: '', created: msToNs(ctx.clock.now()) },
    ]);
    // Nothing added: the sub-account no longer exists (the store adds nothing then, see SuppressionStore).
    if (added.length === 0) return { ok: false, reason: 'gone' };
    const events = await store.messages.listEvents(message.id);
    const alreadyUnsubscribed = events.some((event) => event.type === EventType.Unsubscribed);
    if (!alreadyUnsubscribed) {
      await recordMessageEvent(ctx, store, { message, batch, type: EventType.Unsubscribed, counters: { unsubscribed: 1 } });
    }
    return { ok: true, email: message.to.email, alreadyUnsubscribed };
  });
}
