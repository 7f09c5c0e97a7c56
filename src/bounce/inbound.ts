/**
 * What an inbound report does to the message it is about (src/bounce/reports.ts):
 *
 * - a failure notice (asynchronous bounce: the receiving server accepted the message, then could
 *   not deliver it) ends the message `HardBounced`, records a HardBounced event (type 4) with the
 *   reported status, counts `hardBounced`, and suppresses the address (type hard bounce, with the
 *   diagnostic as `smtp_error`), exactly as a 5xx at delivery would;
 * - a complaint records a Spam event (type 8), counts `spam` and suppresses the address (type spam
 *   complaint), once per message however many reports arrive.
 *
 * Both are rows of the lifecycle table (src/lifecycle/table.ts: `bounce-reported`, `complained`).
 * Both are idempotent: a second report of the same kind for the same message changes nothing.
 * A cc or bcc copy is a message of its own (its own VERP address), so a report about a copy acts
 * on the copy's address and message, never on the recipient it was a copy of.
 *
 * A report about a message that no longer exists, or whose sub-account was deleted, changes
 * nothing and is still accepted (250): the condition is permanent, and the reporting server must
 * not keep retrying it.
 */
import { describeReply } from '../delivery/outcome.js';
import { applyLifecycle, type LifecycleApplyDeps } from '../lifecycle/apply.js';
import type { MailplaneStore, MessageRecord } from '../store/index.js';
import { parseEnhancedCode } from './classify.js';
import type { InboundReport } from './reports.js';
import type { MailplaneMetrics } from '../metrics/metrics.js';

/** What this module uses of the instance: what it calls uses ({@link LifecycleApplyDeps}), and the fields below. */
export interface BounceIntakeDeps extends LifecycleApplyDeps {
  readonly store: MailplaneStore;
  readonly metrics: MailplaneMetrics;
}

/**
 * What applying a report did. `sub-account-gone`: the message's sub-account was deleted (with
 * its suppression list); the report is accepted and discarded, as one about an unknown message.
 */
export type ReportOutcome =
  'hard-bounced' | 'complained' | 'already-recorded' | 'unknown-message' | 'sub-account-gone' | 'ignored';

/**
 * The copy a complaint is about when the report names the message by its `Message-ID` alone
 * (which the copies of one email share) and its `Original-Rcpt-To` is one of the copies.
 */
async function copyComplainedAbout(
  ctx: BounceIntakeDeps,
  message: MessageRecord,
  report: InboundReport,
): Promise<MessageRecord | null> {
  if (report.kind !== 'complaint' || !report.recipient || !message.separateCopies || message.copyOf !== null)
    return null;
  if (report.recipient.toLowerCase() === message.to.email.toLowerCase()) return null;
  return ctx.store.messages.findCopy(message.batchId, message.id, report.recipient);
}

/** Applies `report` to message `messageId` (or, for a complaint, to the copy it names). */
export async function applyReport(
  ctx: BounceIntakeDeps,
  messageId: string,
  report: InboundReport,
): Promise<ReportOutcome> {
  if (report.kind === 'other') return 'ignored';
  const found = await ctx.store.messages.getForDelivery(messageId);
  if (!found) return 'unknown-message';
  const { batch } = found;
  const message = (await copyComplainedAbout(ctx, found.message, report)) ?? found.message;
  // Permanent, so answered as accepted: a 4xx here would have the reporting server retry for days.
  if (!(await ctx.store.subAccounts.get(message.accountId, message.subAccountId))) return 'sub-account-gone';
  const atMs = ctx.clock.now();

  if (report.kind === 'failed') {
    const code = /^([245])\d\d\b/.exec(report.diagnostic.trim())?.[0];
    const smtpCode = code ? Number(code) : null;
    // One safe line, as delivery records a reply (reports are untrusted bytes).
    const diagnostic = describeReply({ kind: 'hard', smtpCode, text: report.diagnostic });
    const enhancedCode = report.status ?? parseEnhancedCode(diagnostic, smtpCode);
    const metadata = { smtpCode, smtpDescription: diagnostic, ...(enhancedCode && { enhancedCode }), source: 'dsn' };
    const applied = await ctx.store.transaction((tx) =>
      applyLifecycle(ctx, tx, {
        message,
        batch,
        outcome: 'bounce-reported',
        atMs,
        fields: { smtpCode, smtpDescription: diagnostic },
        metadata,
        smtpError: diagnostic,
      }),
    );
    return applied.kind === 'applied' ? 'hard-bounced' : 'already-recorded';
  }

  const applied = await ctx.store.transaction((tx) =>
    applyLifecycle(ctx, tx, {
      message,
      batch,
      outcome: 'complained',
      atMs,
      metadata: { feedbackType: report.feedbackType },
    }),
  );
  if (applied.kind === 'applied' || applied.kind === 'repeat')
    ctx.metrics.spamComplaints.inc({ unique: String(applied.kind === 'applied') });
  return applied.kind === 'applied' ? 'complained' : 'already-recorded';
}
