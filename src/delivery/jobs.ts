import type { MailplaneContext } from '../context.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';

// PLACEHOLDER: filled by the delivery helper; remove this comment.
/** The delivery job handlers (deliver-batch, per-message retries). */
export function deliveryJobHandlers(_ctx: MailplaneContext): Record<string, JobHandler | JobKindOptions> {
  return {};
}
