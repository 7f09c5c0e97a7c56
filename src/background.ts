import type { MailplaneContext } from './context.js';
import { deliveryJobHandlers } from './delivery/jobs.js';
import { domainVerificationJobHandlers } from './domain/verification-jobs.js';
import { warmupJobHandlers } from './warmup/jobs.js';
import type { JobHandler, JobKindOptions } from './jobs/types.js';
import { webhookJobHandlers } from './webhook/delivery-jobs.js';
import { retentionJobHandlers } from './retention/jobs.js';
import { scheduledJobHandlers } from './delivery/scheduled-jobs.js';

/**
 * Every kind of background job this instance runs, keyed by job kind. Each capability contributes
 * its handlers here (delivery, DNS re-checks, webhook deliveries, warmup).
 */
export function backgroundJobHandlers(ctx: MailplaneContext): Record<string, JobHandler | JobKindOptions> {
  return { ...deliveryJobHandlers(ctx), ...domainVerificationJobHandlers(ctx), ...warmupJobHandlers(ctx), ...webhookJobHandlers(ctx), ...retentionJobHandlers(ctx), ...scheduledJobHandlers(ctx) };
}
