import type { MailplaneContext } from '../context.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';

// PLACEHOLDER: filled by the DNS-integration helper; remove this comment.
/** The scheduled domain re-check job handlers. */
export function domainVerificationJobHandlers(_ctx: MailplaneContext): Record<string, JobHandler | JobKindOptions> {
  return {};
}
