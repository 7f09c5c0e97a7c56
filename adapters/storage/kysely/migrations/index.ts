import type { Migration, MigrationProvider } from 'kysely';
import type { DialectName } from '../dialect.js';
import { accountsMigration } from './0001-accounts.js';
import { domainsMigration } from './0002-domains.js';
import { suppressionsMigration } from './0003-suppressions.js';
import { ipPoolsMigration } from './0004-ip-pools.js';
import { webhooksMigration } from './0005-webhooks.js';
import { jobsMigration } from './0006-jobs.js';
import { statsMigration } from './0007-stats.js';
import { messagesMigration } from './0008-messages.js';
import { ipWarmupMigration } from './0009-ip-warmup.js';
import { ipOwnerMigration } from './0010-ip-owner.js';
import { rateLimitsMigration } from './0011-rate-limits.js';
import { messageCopiesMigration } from './0012-message-copies.js';
import { sandboxMessagesMigration } from './0013-sandbox-messages.js';
import { settingsMigration } from './0014-settings.js';
import { activityMigration } from './0015-activity.js';
import { retentionOverrideMigration } from './0016-retention-override.js';
import { templatesMigration } from './0017-templates.js';
import { idempotencyMigration } from './0018-idempotency.js';
import { webhookSecretsMigration } from './0020-webhook-secrets.js';
import { dkimRotationMigration } from './0021-dkim-rotation.js';
import { cacheVersionMigration } from './0022-cache-version.js';
import { dashboardSessionsMigration } from './0023-dashboard-sessions.js';
import { eventKeysMigration } from './0024-event-keys.js';
import { webhookDeliveriesMigration } from './0025-webhook-deliveries.js';
import { shapingMigration } from './0026-shaping.js';
import { jobPriorityMigration } from './0027-job-priority.js';
import { alertsMigration } from './0029-alerts.js';
import { protectionMigration } from './0031-protection.js';
import { webhookIncidentMigration } from './0032-webhook-incident.js';
import { inboundMigration } from './0033-inbound.js';
import { inboundActivityMigration } from './0034-inbound-activity.js';
import { inboundPostAttemptsMigration } from './0035-inbound-post-attempts.js';
import { suppressionScaleMigration } from './0028-suppression-scale.js';
import { reputationMigration } from './0030-reputation.js';

/*
 * Versioned migrations, applied in name order on start. Never edit a migration that has shipped:
 * add the next number instead.
 */
const migrationFactories: Record<string, (dialect: DialectName) => Migration> = {
  '0001-accounts': accountsMigration,
  '0002-domains': domainsMigration,
  '0003-suppressions': suppressionsMigration,
  '0004-ip-pools': ipPoolsMigration,
  '0005-webhooks': webhooksMigration,
  '0006-jobs': jobsMigration,
  '0007-stats': statsMigration,
  '0008-messages': messagesMigration,
  '0009-ip-warmup': ipWarmupMigration,
  '0010-ip-owner': ipOwnerMigration,
  '0011-rate-limits': rateLimitsMigration,
  '0012-message-copies': messageCopiesMigration,
  '0013-sandbox-messages': sandboxMessagesMigration,
  '0014-settings': settingsMigration,
  '0015-activity': activityMigration,
  '0016-retention-override': retentionOverrideMigration,
  '0017-templates': templatesMigration,
  '0018-idempotency': idempotencyMigration,
  '0020-webhook-secrets': webhookSecretsMigration,
  '0021-dkim-rotation': dkimRotationMigration,
  '0022-cache-version': cacheVersionMigration,
  '0023-dashboard-sessions': dashboardSessionsMigration,
  '0024-event-keys': eventKeysMigration,
  '0025-webhook-deliveries': webhookDeliveriesMigration,
  '0026-shaping': shapingMigration,
  '0027-job-priority': jobPriorityMigration,
  '0029-alerts': alertsMigration,
  '0028-suppression-scale': suppressionScaleMigration,
  '0030-reputation': reputationMigration,
  '0031-protection': protectionMigration,
  '0032-webhook-incident': webhookIncidentMigration,
  '0033-inbound': inboundMigration,
  '0034-inbound-activity': inboundActivityMigration,
  '0035-inbound-post-attempts': inboundPostAttemptsMigration,
};

/** The Kysely migration provider of the mailplane schema for one dialect. */
export function mailplaneMigrations(dialect: DialectName): MigrationProvider {
  return {
    getMigrations: () =>
      Promise.resolve(
        Object.fromEntries(Object.entries(migrationFactories).map(([name, make]) => [name, make(dialect)])),
      ),
  };
}
