import { applyLifecycle, type LifecycleApplyDeps } from '../lifecycle/apply.js';
import { verifyLinkToken, type LinksDeps } from './links.js';
import type { MailplaneMetrics } from '../metrics/metrics.js';
import type { MailplaneStore } from '../store/index.js';

/** What this module uses of the instance: what it calls uses ({@link LifecycleApplyDeps}, {@link LinksDeps}), and the fields below. */
export interface UnsubscribeDeps extends LifecycleApplyDeps, LinksDeps {
  readonly store: MailplaneStore;
  readonly metrics: MailplaneMetrics;
}

/**
 * What an unsubscribe request did: `ok` with the address unsubscribed; `invalid` for a token that
 * is not valid or names no message; `gone` when the message's sub-account was deleted (its
 * suppression list went with it, and nothing can be sent from it any more).
 */
export type UnsubscribeResult =
  { ok: true; email: string; alreadyUnsubscribed: boolean } | { ok: false; reason: 'invalid' | 'gone' };

/**
 * Unsubscribes the recipient of the message a signed token names: the address joins the
 * suppression list of the message's sub-account (type unsubscribe), and the message gets one
 * Unsubscribed event, counted once however often the link is used. A cc or bcc copy is a message
 * of its own with its own token, so its link unsubscribes the copy's address. This is the
 * `unsubscribed` row of the lifecycle table (src/lifecycle/table.ts).
 */
export async function unsubscribeByToken(ctx: UnsubscribeDeps, token: string): Promise<UnsubscribeResult> {
  const messageId = verifyLinkToken(ctx, 'unsubscribe', token);
  if (messageId === null) return { ok: false, reason: 'invalid' };
  const found = await ctx.store.messages.getForDelivery(messageId);
  if (!found) return { ok: false, reason: 'invalid' };
  const { message, batch } = found;
  const atMs = ctx.clock.now();
  const applied = await ctx.store.transaction((tx) =>
    applyLifecycle(ctx, tx, { message, batch, outcome: 'unsubscribed', atMs }),
  );
  // Gone: the suppression list went with the sub-account, and nothing was recorded.
  if (applied.kind === 'gone') return { ok: false, reason: 'gone' };
  if (applied.kind === 'applied' || applied.kind === 'repeat')
    ctx.metrics.unsubscribes.inc({ unique: String(applied.kind === 'applied') });
  return { ok: true, email: message.to.email, alreadyUnsubscribed: applied.kind === 'repeat' };
}
