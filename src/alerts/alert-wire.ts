import { z } from 'zod';
import { emailAddressSchema } from '../model/email-address.js';
import { nameSchema } from '../model/text.js';
import { epochNsSchema } from '../model/wire-schemas.js';
import type { AlertRecord } from '../store/index.js';
import { MAX_WEBHOOK_URL_LENGTH } from '../webhook/url.js';
import { alertProviderToWire, MAX_PROCESSED_COUNT_THRESHOLD } from './codes.js';

/** The most addresses one rule notifies. */
export const MAX_ALERT_EMAILS = 10;

// The enumerated fields are read loosely here and checked by the service, so that each mistake
// gets its own stable code (ALERT_PARAMETER_UNKNOWN, …) rather than the generic VALIDATION_FAILED.
const activeSchema = z
  .union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')])
  .meta({ description: 'Whether the rule is evaluated (the legacy `EAlert` sends it as text).' });
const entityValueSchema = z
  .union([
    z.int(),
    z
      .string()
      .regex(/^[0-9]{1,19}$/, 'must be a whole number')
      .transform(Number),
  ])
  .meta({ description: "The entity's id (the account's own id, or omitted, for `account`)." });
const thresholdSchema = z
  .union([
    z.number(),
    z
      .string()
      .regex(/^-?[0-9]{1,15}(\.[0-9]{1,9})?$/, 'must be a number')
      .transform(Number),
  ])
  .meta({ description: 'A percentage 0-100 for a rate; a number of messages for volume.' });

const ruleFields = {
  name: nameSchema(100),
  active: activeSchema,
  entityType: z.string().max(40).meta({ description: 'account, subAccount, ip, ipPool or domain.' }),
  entityValue: entityValueSchema,
  parameter: z.int().meta({ description: 'docs/reputation.md: 0 hard-bounce rate … 7 volume.' }),
  threshold: thresholdSchema,
  provider: z
    .union([z.string().max(10), z.int()])
    .meta({ description: '`all` (default), or a mailbox provider id 0-11 (docs/routing.md).' }),
  processedCountThreshold: z
    .int()
    .min(0, 'must be at least 0')
    .max(MAX_PROCESSED_COUNT_THRESHOLD, `must be at most ${MAX_PROCESSED_COUNT_THRESHOLD}`)
    .meta({ description: 'The least processed volume in the window before a rate counts (default 100).' }),
  windowHours: z.int().meta({ description: 'The window measured: 1, 24 (default) or 168 hours.' }),
  emails: z.array(emailAddressSchema).max(MAX_ALERT_EMAILS, `at most ${MAX_ALERT_EMAILS} addresses`),
  slackUrl: z
    .string()
    .max(MAX_WEBHOOK_URL_LENGTH, `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`)
    .nullable()
    .meta({ description: 'A Slack-compatible incoming webhook; `null` or empty for none.' }),
};

/** The body of `POST /account/alert/`: the legacy `AlertRequest` and mailplane's `windowHours`. */
export const createAlertBody = z.strictObject({
  ...ruleFields,
  active: ruleFields.active.optional(),
  entityValue: ruleFields.entityValue.optional(),
  provider: ruleFields.provider.optional(),
  processedCountThreshold: ruleFields.processedCountThreshold.optional(),
  windowHours: ruleFields.windowHours.optional(),
  emails: ruleFields.emails.optional(),
  slackUrl: ruleFields.slackUrl.optional(),
});

/** The body of `PUT /account/alert/{id}`: any of the fields of a creation, at least one. */
export const updateAlertBody = z
  .strictObject(
    Object.fromEntries(Object.entries(ruleFields).map(([k, v]) => [k, v.optional()])) as {
      [K in keyof typeof ruleFields]: z.ZodOptional<(typeof ruleFields)[K]>;
    },
  )
  .refine((body) => Object.keys(body).length > 0, 'give at least one field to change');

/** What a rule's request carries, after the body schema. */
export type AlertInput = Partial<z.output<typeof createAlertBody>>;

/** The wire shape of {@link alertToWire}. */
export const alertWireSchema = z.object({
  id: z.int(),
  name: z.string(),
  active: z.boolean(),
  entityType: z.string(),
  entityValue: z.string(),
  parameter: z.int(),
  threshold: z.string(),
  provider: z.string(),
  processedCountThreshold: z.int(),
  windowHours: z.int(),
  emails: z.array(z.string()),
  slackUrl: z.string().nullable(),
  created: epochNsSchema,
  updated: epochNsSchema,
});

/** The answer of a creation: the rule and the legacy `AlertResponse`'s `success`. */
export const createdAlertWireSchema = alertWireSchema.extend({ success: z.literal(true) });

/**
 * The legacy document's `DetailedAlert` (`entityValue`, `threshold` and `provider` as text, as it
 * has them) with the fields it leaves out: where to notify, the window, the volume floor and times.
 */
export function alertToWire(record: AlertRecord): z.output<typeof alertWireSchema> {
  return {
    id: record.id,
    name: record.name,
    active: record.active,
    entityType: record.entityType,
    entityValue: String(record.entityId),
    parameter: record.parameter,
    threshold: String(record.threshold),
    provider: alertProviderToWire(record.provider),
    processedCountThreshold: record.processedCountThreshold,
    windowHours: record.windowHours,
    emails: [...record.emails],
    slackUrl: record.slackUrl,
    created: record.created,
    updated: record.updated,
  };
}
