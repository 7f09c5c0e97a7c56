/**
 * The delivery job handlers. A send's `deliver-batch` job splits the batch into pages: each run
 * lists one page of queued messages, enqueues a `deliver-page` job for it and a `deliver-batch`
 * continuation for the rest, in one transaction. Page jobs are what several workers (processes)
 * share, so a bulk send is drained by all of them. A send that fits in one page is delivered by its
 * `deliver-batch` job itself, on its first attempt: one job slot per small send instead of two, one
 * after the other (docs/performance.md, "Fair queues"). A soft bounce schedules a `deliver-message`
 * retry of that message (src/delivery/outcome.ts).
 *
 * Every handler is idempotent: only messages still `queued` (pages) or `deferred` at the expected
 * attempt (retries) are sent, and outcomes move a message only from the state the attempt found.
 *
 * Each kind also says how to give up (`JobKindOptions.giveUp`): when its job fails for good, the
 * messages it still held are dropped with reason `JOB_FAILED` (src/delivery/job-failure.ts) rather
 * than left `queued` for a job that will never run again.
 */
import {
  DELIVER_BATCH_JOB,
  DELIVER_MESSAGE_JOB,
  DELIVER_PAGE_JOB,
  jobGiveUp,
  jobHandler,
  type MailplaneJobs,
} from '../jobs/kinds.js';
import type { EnqueueJob } from '../jobs/queue.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';
import { canAttempt } from '../lifecycle/table.js';
import type { JobRecord, MessageRecord } from '../store/index.js';
import type { DeliveryService } from './service.js';
import { dropForFailedJob, type JobFailureDeps } from './job-failure.js';
import type { MailplaneConfig } from '../mailplane-config.js';

/** What this module uses of the instance: what it calls uses ({@link JobFailureDeps}), and the fields below. */
export interface DeliveryJobsDeps extends JobFailureDeps {
  readonly config: MailplaneConfig;
}

/** Messages read per query when a batch job gives up (a batch holds at most 2,000, and their copies). */
const GIVE_UP_PAGE = 500;

/** The delivery job handlers (deliver-batch, deliver-page, deliver-message), sending through `delivery`. */
export function deliveryJobHandlers(
  ctx: DeliveryJobsDeps,
  delivery: DeliveryService,
): Record<string, JobHandler | JobKindOptions> {
  const splitBatch = jobHandler(DELIVER_BATCH_JOB, async (job, helpers) => {
    const { batchId, afterId } = job.payload;
    const pageSize = ctx.config.delivery.pageSize;
    const page = await ctx.store.messages.listQueued(batchId, pageSize, afterId || undefined);
    if (page.length === 0) return;
    if (deliversItself(job, page.length)) {
      await deliverListed(page, helpers.signal);
      return;
    }
    const lastId = page[page.length - 1]!.id;
    // The pages and the continuation stay in the send's class and share (src/jobs/delivery-class.ts).
    const placement = { stream: job.stream, fairKey: job.fairKey };
    await ctx.store.transaction(async (tx) => {
      const jobs: EnqueueJob<MailplaneJobs>[] = [
        {
          kind: DELIVER_PAGE_JOB,
          payload: { batchId, afterId: afterId ?? '', ids: page.map((m) => m.id) },
          runAt: ctx.clock.now(),
          dedupeKey: `${batchId}:${afterId ?? ''}`,
          ...placement,
        },
      ];
      if (page.length === pageSize) {
        jobs.push({
          kind: DELIVER_BATCH_JOB,
          payload: { batchId, afterId: lastId },
          runAt: ctx.clock.now(),
          dedupeKey: `${DELIVER_BATCH_JOB}:${batchId}:${lastId}`,
          ...placement,
        });
      }
      await ctx.jobs.enqueue(jobs, { store: tx });
      // The split happens once: a second run after this commit would list a different page (some
      // of this one delivered meanwhile) and start a second continuation, overlapping the first.
      await helpers.completeIn(tx);
    });
    ctx.jobs.notify();
  });

  const deliverPage = jobHandler(DELIVER_PAGE_JOB, async (job, helpers) => {
    // Without a transport the job waits before it reads the store (the service checks again when it
    // sends, for the callers that did not).
    delivery.transport();
    const { batchId, afterId, ids } = job.payload;
    const wanted = new Set(ids);
    // The page's messages are the first queued ones after afterId when it was split; the queued
    // set only shrinks, so they are still among the first `ids.length` after it.
    const listed = await ctx.store.messages.listQueued(batchId, Math.max(ids.length, 1), afterId || undefined);
    await deliverListed(
      listed.filter((m) => wanted.has(m.id)),
      helpers.signal,
    );
  });

  /**
   * Whether a `deliver-batch` job sends its page itself: the whole send fits in one page (its first
   * run, with no `afterId`, lists fewer than a page) and this is the job's first attempt. A later
   * attempt may follow one that split the send and lost its completion, with that page job still
   * running: it splits again, and the page's dedupe key keeps a second copy of the page from racing
   * the first, as on the page path. Its give-up drops the same messages a page job's would.
   */
  function deliversItself(job: { attempts: number; payload: { afterId?: string } }, listed: number): boolean {
    return !job.payload.afterId && listed < ctx.config.delivery.pageSize && job.attempts <= 1;
  }

  /** Delivers `messages` (still `queued` when listed, all of one send). */
  async function deliverListed(messages: MessageRecord[], signal: AbortSignal): Promise<void> {
    if (messages.length === 0) return;
    const first = await ctx.store.messages.getForDelivery(messages[0]!.id);
    if (!first) return;
    await delivery.deliverAll(messages, first.batch, signal);
  }

  const retryMessage = jobHandler(DELIVER_MESSAGE_JOB, async (job, helpers) => {
    // As for a page: wait for a transport before reading the store.
    delivery.transport();
    const found = await ctx.store.messages.getForDelivery(job.payload.messageId);
    // Already moved on (delivered meanwhile, or this retry already ran): nothing to do. A message
    // deferred by routing may still be `queued` (src/delivery/routing-wait.ts).
    if (!found || !canAttempt(found.message.status) || found.message.attempts !== job.payload.attempt) return;
    await delivery.deliverAgain(found.message, found.batch, helpers.signal, job.payload.slot);
  });

  // A batch job that died enqueued no page after `afterId`: the messages still queued there were its to send.
  const giveUpBatch = jobGiveUp(DELIVER_BATCH_JOB, async (job, reason) => {
    const { batchId, afterId } = job.payload;
    const messages: MessageRecord[] = [];
    let after = afterId || undefined;
    for (;;) {
      const page = await ctx.store.messages.listQueued(batchId, GIVE_UP_PAGE, after);
      messages.push(...page);
      if (page.length < GIVE_UP_PAGE) break;
      after = page[page.length - 1]!.id;
    }
    await dropHeld(job, reason, messages);
  });

  const giveUpPage = jobGiveUp(DELIVER_PAGE_JOB, async (job, reason) => {
    const { batchId, afterId, ids } = job.payload;
    const wanted = new Set(ids);
    const listed = await ctx.store.messages.listQueued(batchId, Math.max(ids.length, 1), afterId || undefined);
    await dropHeld(
      job,
      reason,
      listed.filter((m) => wanted.has(m.id)),
    );
  });

  const giveUpMessage = jobGiveUp(DELIVER_MESSAGE_JOB, async (job, reason) => {
    const found = await ctx.store.messages.getForDelivery(job.payload.messageId);
    // Moved on meanwhile (another job of it got there): not this job's to fail.
    if (!found || !canAttempt(found.message.status) || found.message.attempts !== job.payload.attempt) return;
    await dropForFailedJob(ctx, { job, reason, batch: found.batch, messages: [found.message] });
  });

  async function dropHeld(job: Pick<JobRecord, 'id' | 'kind'>, reason: string, messages: MessageRecord[]) {
    if (messages.length === 0) return;
    const found = await ctx.store.messages.getForDelivery(messages[0]!.id);
    if (found) await dropForFailedJob(ctx, { job, reason, batch: found.batch, messages });
  }

  return {
    [DELIVER_BATCH_JOB]: { handler: splitBatch, giveUp: giveUpBatch },
    [DELIVER_PAGE_JOB]: { handler: deliverPage, giveUp: giveUpPage },
    [DELIVER_MESSAGE_JOB]: { handler: retryMessage, giveUp: giveUpMessage },
  };
}
