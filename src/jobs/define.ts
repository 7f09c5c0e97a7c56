import type { JobHandler } from './types.js';

/**
 * Declares a handler with a typed payload, to put in `JobRunnerOptions.handlers` (whose handlers
 * take any JSON object). The payload is what the enqueuer wrote, read back from storage: check
 * anything that may come from an older version of the code. mailplane's own kinds use
 * `jobHandler` (src/jobs/kinds.ts), which does that check with the kind's schema.
 *
 * @example
 * const deliver = defineJobHandler<{ messageId: string }>(async (job) => send(job.payload.messageId));
 */
export function defineJobHandler<P extends object>(handler: JobHandler<P>): JobHandler {
  return handler as JobHandler;
}
