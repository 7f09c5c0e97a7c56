import type { AnyRoute } from '../route.js';
import { domainRoutes } from './domains.js';
import { ipPoolRoutes } from './ip-pools.js';
import { emailRoutes } from './email.js';
import { statsRoutes } from './stats.js';
import { subAccountRoutes } from './sub-accounts.js';
import { suppressionRoutes } from './suppressions.js';
import { webhookRoutes } from './webhooks.js';
import { sandboxRoutes } from './sandbox.js';
import { activityRoutes } from './activity.js';
import { emailCancelRoutes } from './email-cancel.js';
import { templateRoutes } from './templates.js';
import { alertRoutes, incidentRoutes } from './alerts.js';
import { protectionRoutes } from './protection.js';
import { shapingRoutes } from './shaping.js';
import { inboundRoutes } from './inbound-routes.js';
import { inboundMessageRoutes } from './inbound-messages.js';
import { inboundPostAttemptRoutes } from './inbound-post-attempts.js';

/** The route table of the whole `/api/v1` surface. */
export const apiRoutes: readonly AnyRoute[] = [
  ...subAccountRoutes,
  ...domainRoutes,
  ...suppressionRoutes,
  ...ipPoolRoutes,
  ...webhookRoutes,
  ...statsRoutes,
  ...activityRoutes,
  ...emailRoutes,
  ...sandboxRoutes,
  ...emailCancelRoutes,
  ...templateRoutes,
  ...alertRoutes,
  ...protectionRoutes,
  ...incidentRoutes,
  ...shapingRoutes,
  ...inboundRoutes,
  ...inboundMessageRoutes,
  ...inboundPostAttemptRoutes,
];
