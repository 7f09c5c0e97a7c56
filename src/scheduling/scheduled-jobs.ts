/**
 * The release of a scheduled send (docs/sending.md, "Scheduled sending"). Acceptance stores the
 * messages `scheduled` and commits a `deliver-scheduled` job due at `sendAt`; the job queue is
 * durable and shared, so the release survives a restart and any node may run it. At its time the
 * checks that depend on time are made again (the sub-account is not blocked, the sending domain is
 * still verified, the address was not suppressed meanwhile): a message that fails one is dropped
 * with the usual Dropped event and reason, the others move to `queued`, and the batch's
 * `deliver-batch` job is queued, all in one transaction. A message cancelled meanwhile is left as
 * it is (the status moves by compare-and-set, so a cancel and a release never both apply).
 */
import { deliveryClass } from '../jobs/delivery-class.js';
import { DELIVER_BATCH_JOB, DELIVER_SCHEDULED_JOB, jobGiveUp, jobHandler } from '../jobs/kinds.js';
import type { JobKindOptions } from '../jobs/types.js';
import { applyLifecycle } from '../lifecycle/apply.js';
import { senderDomain, type Drop } from '../sending/accept.js';
import { dropForFailedJob, type JobFailureDeps } from '../delivery/job-failure.js';
import type { MessageRecord, SendBatchRecord } from '../store/index.js';
import { nowNs } from '../model/time.js';

/** What this module uses of the instance: what it calls uses, {@link JobFailureDeps}, and nothing more. */
export type ScheduledJobsDeps = JobFailureDeps;

/** Messages read per query while listing a batch (a batch holds at most 2,000). */
const PAGE = 500;
/** Addresses per suppression query (the store's contract takes up to 1,000). */
const SUPPRESSION_CHUNK = 1_000;

/** The still-scheduled messages of a batch, with the batch, or `null` when none is left. */
async function scheduledOf(
  ctx: ScheduledJobsDeps,
  batchId: string,
): Promise<{ batch: SendBatchRecord; messages: MessageRecord[] } | null> {
  const messages: MessageRecord[] = [];
  let afterId: string | undefined;
  for (;;) {
    const page = await ctx.store.messages.listBatch(batchId, PAGE, afterId);
    messages.push(...page.filter((m) => m.status === 'scheduled'));
    if (page.length < PAGE) break;
    afterId = page[page.length - 1]!.id;
  }
  if (messages.length === 0) return null;
  const found = await ctx.store.messages.getForDelivery(messages[0]!.id);
  return found && { batch: found.batch, messages };
}

/** Why the whole batch cannot be sent now (sub-account blocked or gone, domain not verified), or `null`. */
async function batchDrop(ctx: ScheduledJobsDeps, batch: SendBatchRecord): Promise<Drop | null> {
  const subAccount = await ctx.store.subAccounts.get(batch.accountId, batch.subAccountId);
  if (!subAccount) return { reason: 'SUBACCOUNT_BLOCKED', detail: 'the sub-account no longer exists' };
  if (subAccount.blocked) {
    const reason = subAccount.blockReason ? `: ${subAccount.blockReason}` : '';
    return { reason: 'SUBACCOUNT_BLOCKED', detail: `the sub-account was blocked before the scheduled send${reason}` };
  }
  return (await senderDomain(ctx.store, batch.subAccountId, batch.content.from.email)).drop;
}

/** The addresses among `messages` suppressed in the sub-account now. */
async function suppressedNow(
  ctx: ScheduledJobsDeps,
  subAccountId: number,
  messages: readonly MessageRecord[],
): Promise<Set<string>> {
  const emails = [...new Set(messages.map((m) => m.to.email))];
  const now = nowNs(ctx.clock);
  const suppressed = new Set<string>();
  for (let i = 0; i < emails.length; i += SUPPRESSION_CHUNK) {
    for (const email of await ctx.store.suppressions.suppressedAmong(
      subAccountId,
      emails.slice(i, i + SUPPRESSION_CHUNK),
      now,
    ))
      suppressed.add(email);
  }
  return suppressed;
}

/** Releases the scheduled send `batchId`: see the module comment. Idempotent (a rerun finds nothing scheduled). */
export async function releaseScheduledSend(ctx: ScheduledJobsDeps, batchId: string): Promise<void> {
  const found = await scheduledOf(ctx, batchId);
  if (!found) return;
  const { batch, messages } = found;
  const whole = await batchDrop(ctx, batch);
  const suppressed = whole ? new Set<string>() : await suppressedNow(ctx, batch.subAccountId, messages);
  const dropOf = (message: MessageRecord): Drop | null =>
    whole ??
    (suppressed.has(message.to.email)
      ? {
          reason: 'SUPPRESSED',
          detail: 'the address was added to the suppression list of this sub-account before the scheduled send',
        }
      : null);

  const atMs = ctx.clock.now();
  const drops: Drop[] = [];
  let released = 0;
  await ctx.store.transaction(async (tx) => {
    drops.length = 0;
    released = 0;
    for (const message of messages) {
      const drop = dropOf(message);
      const result = await applyLifecycle(ctx, tx, {
        message,
        batch,
        atMs,
        outcome: drop ? 'refused-at-release' : 'released',
        ...(drop && {
          fields: { smtpDescription: `${drop.reason}: ${drop.detail}` },
          metadata: { reason: drop.reason, description: drop.detail },
        }),
      });
      if (result.kind !== 'applied') continue;
      if (drop) drops.push(drop);
      else released += 1;
    }
    if (released > 0) {
      await ctx.jobs.enqueue(
        [
          {
            kind: DELIVER_BATCH_JOB,
            payload: { batchId },
            runAt: atMs,
            dedupeKey: `${DELIVER_BATCH_JOB}:${batchId}`,
            ...deliveryClass(batch),
          },
        ],
        { store: tx },
      );
    }
  });
  if (released > 0) ctx.jobs.notify();
  for (const drop of drops) {
    ctx.metrics.messages.inc({ outcome: 'refused-at-release' });
    ctx.metrics.dropped.inc({ reason: drop.reason });
  }
}

/**
 * The `deliver-scheduled` job handler, and its give-up: a release that fails for good drops the
 * messages still scheduled (reason `JOB_FAILED`, src/delivery/job-failure.ts) rather than leaving
 * them `scheduled` past their time with no word.
 */
export function scheduledJobHandlers(ctx: ScheduledJobsDeps): Record<string, JobKindOptions> {
  return {
    [DELIVER_SCHEDULED_JOB]: {
      handler: jobHandler(DELIVER_SCHEDULED_JOB, (job) => releaseScheduledSend(ctx, job.payload.batchId)),
      giveUp: jobGiveUp(DELIVER_SCHEDULED_JOB, async (job, reason) => {
        const found = await scheduledOf(ctx, job.payload.batchId);
        if (found) await dropForFailedJob(ctx, { job, reason, ...found });
      }),
    },
  };
}
