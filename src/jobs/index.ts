/**
 * The durable job queue's worker side: {@link createJobQueue} to enqueue and wake runners,
 * {@link createJobRunner} to run handlers. The storage side is `JobStore` (`store.jobs`).
 * See docs/jobs.md.
 */
export { createJobQueue, type EnqueueJob, type EnqueueOptions, type JobQueue } from './queue.js';
export { createJobRunner } from './runner.js';
export { defineJobHandler } from './define.js';
export { exponentialBackoff, toBackoffFunction, type BackoffFunction, type BackoffOptions } from './backoff.js';
export { PermanentJobError, RetryJobError, type RetryJobOptions } from './errors.js';
export type { JobContext, JobHandler, JobHelpers, JobKindOptions, JobRunner, JobRunnerOptions } from './types.js';
