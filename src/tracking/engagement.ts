/**
 * Opens and clicks, as the tracking endpoints record them: every open or click appends an event
 * (Opened, type 5; Clicked, type 6), so webhooks see each one; the `opened` and `clicked`
 * counters count messages, on the first open or click of each. `eventMetadata` carries the
 * reference's `userAgent` (parsed), `rawUserAgent`, `clickedURL` for clicks, and `unique: true` on a
 * message's first open or click (what the `uniqueOpen` / `uniqueClick` webhook switches receive),
 * and `proxy` when a mailbox provider's image proxy made the request (flagged, not dropped: the
 * open still counts, but a consumer can tell it from a reader's).
 * Both are rows of the lifecycle table (src/lifecycle/table.ts: `opened`, `clicked`).
 */
import { applyLifecycle, type LifecycleApplyDeps } from '../lifecycle/apply.js';
import { mailProxyOf, parseUserAgent } from './user-agent.js';
import type { MailplaneMetrics } from '../metrics/metrics.js';
import type { MailplaneStore } from '../store/index.js';

/** What this module uses of the instance: what it calls uses ({@link LifecycleApplyDeps}), and the fields below. */
export interface EngagementDeps extends LifecycleApplyDeps {
  readonly store: MailplaneStore;
  readonly metrics: MailplaneMetrics;
}

/** What was done with a message, and by what client. */
export type Engagement = { kind: 'open'; userAgent: string } | { kind: 'click'; userAgent: string; url: string };

/** Longest User-Agent kept with an event: they are client-supplied. */
const MAX_USER_AGENT = 512;

/**
 * Records `engagement` on message `messageId`; answers false when there is no such message. The
 * first-of-its-kind check and the event share one transaction.
 */
export async function recordEngagement(
  ctx: EngagementDeps,
  messageId: string,
  engagement: Engagement,
): Promise<boolean> {
  const found = await ctx.store.messages.getForDelivery(messageId);
  if (!found) return false;
  const { message, batch } = found;
  const rawUserAgent = engagement.userAgent.slice(0, MAX_USER_AGENT);
  const proxy = mailProxyOf(rawUserAgent);
  const atMs = ctx.clock.now();
  const applied = await ctx.store.transaction((tx) =>
    applyLifecycle(ctx, tx, {
      message,
      batch,
      outcome: engagement.kind === 'open' ? 'opened' : 'clicked',
      atMs,
      metadata: (unique) => ({
        userAgent: parseUserAgent(rawUserAgent),
        rawUserAgent,
        ...(proxy && { proxy }),
        ...(engagement.kind === 'click' && { clickedURL: engagement.url }),
        unique,
      }),
    }),
  );
  // Counted once committed (a transaction that threw recorded nothing).
  if (applied.kind === 'applied') {
    const unique = String(applied.first);
    if (engagement.kind === 'open') ctx.metrics.opens.inc({ unique, proxy: proxy ?? 'none' });
    else ctx.metrics.clicks.inc({ unique });
  }
  return true;
}
