import type { MailplaneContext } from '../context.js';
import { msToNs } from '../model/time.js';
import { recordMessageEvent } from '../sending/events.js';
import { EventType, SuppressionType } from '../store/index.js';
import { verifyLinkToken } from './links.js';

/** What an unsubscribe request did. */
export type UnsubscribeResult = { ok: true; email: string; alreadyUnsubscribed: boolean } | { ok: false };

/**
 * Unsubscribes the recipient of the message a signed token names: the address joins the
 * suppression list of the message's sub-account (type unsubscribe), and the message gets one
 * Unsubscribed event, counted once however often the link is used. An invalid token or an
 * unknown message is `{ ok: false }`.
 */
export async function unsubscribeByToken(ctx: MailplaneContext, token: string): Promise<UnsubscribeResult> {
  const messageId = verifyLinkToken(ctx, 'unsubscribe', token);
  if (messageId === null) return { ok: false };
  const found = await ctx.store.messages.getForDelivery(messageId);
  if (!found) return { ok: false };
  const { message, batch } = found;
  return ctx.store.transaction(async (store) => {
    await store.suppressions.add(message.subAccountId, [
      { email: message.to.email, type: SuppressionType.Unsubscribe, smtpError: '', created: msToNs(ctx.clock.now()) },
    ]);
    const events = await store.messages.listEvents(message.id);
    const alreadyUnsubscribed = events.some((event) => event.type === EventType.Unsubscribed);
    if (!alreadyUnsubscribed) {
      await recordMessageEvent(ctx, store, { message, batch, type: EventType.Unsubscribed, counters: { unsubscribed: 1 } });
    }
    return { ok: true, email: message.to.email, alreadyUnsubscribed };
  });
}
