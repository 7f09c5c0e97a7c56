import type { WebhookRecord } from '../store/index.js';
import { pickToggles } from './toggles.js';

/**
 * The `Webhook` of the reference document. The signing secret is never part of it: it is shown
 * once, as the extra field `secret`, by {@link webhookWithSecretToWire} on create and on rotation.
 * mailplane's additions: `disabledReason` and `disabledAt` (ns) when mailplane disabled the webhook
 * after it kept failing (both `null` otherwise), and `previousSecretExpiresAt` (ns) while the secret a
 * rotation replaced still signs (`null` otherwise).
 * `created_by` / `updated_by` (dashboard members) are not modelled and are omitted.
 */
export function webhookToWire(record: WebhookRecord) {
  return {
    id: record.id,
    enabled: record.enabled,
    url: record.url,
    ...pickToggles(record),
    created: record.created,
    disabledReason: record.disabledReason,
    disabledAt: record.disabledAt,
    previousSecretExpiresAt: record.previousSecretSealed === null ? null : record.previousSecretUntil,
  };
}

/** {@link webhookToWire} plus the plaintext signing secret; only for the response that made the secret. */
export function webhookWithSecretToWire(record: WebhookRecord, secret: string) {
  return { ...webhookToWire(record), secret };
}
