import { z } from 'zod';
import { epochNsSchema } from '../model/wire-schemas.js';
import type { WebhookDeliveryRecord, WebhookRecord, WebhookToggle } from '../store/index.js';
import { pickToggles, WEBHOOK_TOGGLES } from '../lifecycle/webhook-toggles.js';

const toggleFields = Object.fromEntries(WEBHOOK_TOGGLES.map((toggle) => [toggle, z.boolean()])) as Record<
  WebhookToggle,
  z.ZodBoolean
>;

/** The wire shape of {@link webhookToWire}: the reference's `Webhook`. */
export const webhookWireSchema = z.object({
  id: z.int(),
  enabled: z.boolean(),
  url: z.string(),
  ...toggleFields,
  created: epochNsSchema,
  disabledReason: z.string().nullable(),
  disabledAt: epochNsSchema.nullable(),
  previousSecretExpiresAt: epochNsSchema.nullable(),
});

/** The wire shape of {@link webhookWithSecretToWire}. */
export const webhookWithSecretWireSchema = webhookWireSchema.extend({ secret: z.string() });

/** The answer of an update: the webhook, with `secret` only when the update rotated it. */
export const webhookUpdateWireSchema = webhookWireSchema.extend({ secret: z.string().optional() });

/**
 * The `Webhook` of the reference document. The signing secret is never part of it: it is shown
 * once, as the extra field `secret`, by {@link webhookWithSecretToWire} on create and on rotation.
 * mailplane's additions: `disabledReason` and `disabledAt` (ns) when mailplane disabled the webhook
 * after it kept failing (both `null` otherwise), and `previousSecretExpiresAt` (ns) while the secret a
 * rotation replaced still signs (`null` otherwise).
 * `created_by` / `updated_by` (dashboard members) are not modelled and are omitted.
 */
export function webhookToWire(record: WebhookRecord): z.output<typeof webhookWireSchema> {
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
export function webhookWithSecretToWire(
  record: WebhookRecord,
  secret: string,
): z.output<typeof webhookWithSecretWireSchema> {
  return { ...webhookToWire(record), secret };
}

/** The wire shape of {@link webhookDeliveryToWire}: one attempt of the delivery log. */
export const webhookDeliveryWireSchema = z.object({
  id: z.int(),
  webhookId: z.int(),
  eventId: z.string(),
  replayId: z.string().nullable(),
  attempt: z.int(),
  result: z.enum(['delivered', 'will-retry', 'gave-up', 'failed']),
  status: z.int().nullable(),
  error: z.string().nullable(),
  durationMs: z.int(),
  created: epochNsSchema,
  nextRetryAt: epochNsSchema.nullable(),
});

/**
 * One attempt of `GET /account/webhook/{id}/delivery` (mailplane's addition, docs/webhooks.md):
 * which event, which attempt, what came of it, the receiver's status or the error in plain words,
 * how long it took, and when the queued retry is due.
 */
export function webhookDeliveryToWire(record: WebhookDeliveryRecord): z.output<typeof webhookDeliveryWireSchema> {
  return {
    id: record.id,
    webhookId: record.webhookId,
    eventId: record.eventId,
    replayId: record.replayId,
    attempt: record.attempt,
    result: record.result,
    status: record.status,
    error: record.error,
    durationMs: record.durationMs,
    created: record.created,
    nextRetryAt: record.nextRetryAt,
  };
}
