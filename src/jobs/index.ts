/**
 * The durable job queue's worker side: {@link createJobQueue} to enqueue and wake runners,
 * {@link createJobRunner} to run handlers. The storage side is `JobStore` (`store.jobs`).
 * See docs/jobs.md.
 */
export { createJobQueue, type EnqueueJob, type EnqueueOptions, type JobPayloads, type JobQueue } from './queue.js';
export {
  DELIVER_BATCH_JOB,
  DELIVER_MESSAGE_JOB,
  DELIVER_PAGE_JOB,
  DOMAIN_CHECK_JOB,
  IP_WARMUP_JOB,
  WEBHOOK_EVENTS_JOB,
  WEBHOOK_RETRY_JOB,
  type JobPayload,
  type MailplaneJobKind,
  type MailplaneJobs,
} from './kinds.js';
export { createJobRunner, JobRunner } from './runner.js';
export { defineJobHandler } from './define.js';
export { exponentialBackoff, toBackoffFunction, type BackoffFunction, type BackoffOptions } from './backoff.js';
export { PermanentJobError, RetryJobError, type RetryJobOptions } from './errors.js';
export type {
  JobContext,
  JobGiveUp,
  JobHandler,
  JobHelpers,
  JobKindOptions,
  JobRunnerOptions,
  JobRunnerStatus,
  JobWakeups,
} from './types.js';
