import { z } from 'zod';
import { freeTextSchema, plainTextSchema } from '../model/text.js';
import { emailAddressSchema } from '../model/email-address.js';
import { RESERVED_FIELD } from '../template/renderer.js';
import { customHeaderProblem } from './headers.js';
import { sendAtSchema } from './schedule.js';

/** Most recipients (`to` entries) one request may carry; each becomes one message. */
export const MAX_RECIPIENTS_PER_REQUEST = 1000;
/** Most cc copies, and most bcc copies, of one recipient. */
export const MAX_COPIES_PER_RECIPIENT = 50;
/**
 * Most cc and bcc copies of one request, all recipients together. Each copy is a message of its own
 * (src/sending/recipients.ts), so this bounds one request at 2,000 messages written in one
 * transaction, where 1,000 recipients with 100 copies each would be 101,000.
 */
export const MAX_COPIES_PER_REQUEST = 1000;
/** Most custom fields of one recipient, and the longest name and value. */
export const MAX_CUSTOM_FIELDS = 100;
/** The longest custom field name. */
export const MAX_FIELD_NAME = 100;
const MAX_FIELD_VALUE = 10_000;
/** Most custom headers, groups and attachments of one request. */
export const MAX_HEADERS = 50;
export const MAX_GROUPS = 10;
export const MAX_ATTACHMENTS = 20;

/** Keys that would reach an object's prototype if ever copied with plain assignment. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const ownKeysProblem = (value: unknown, label: string): string | null => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  for (const key of Object.keys(value)) if (PROTOTYPE_KEYS.has(key)) return `${label} may not use the name ${key}`;
  return null;
};

/** Checks raw object keys before zod copies them, so `__proto__` is refused, not silently lost (`label`: "a custom field"). */
export const guardKeys = <T extends z.ZodType>(schema: T, label: string) =>
  z
    .unknown()
    .superRefine((value, check) => {
      const problem = ownKeysProblem(value, label);
      if (problem) check.addIssue({ code: 'custom', message: problem });
    })
    .pipe(schema);

/**
 * Custom fields: string values, or numbers and booleans which are turned into their text (the
 * spec says string to string; scalars are accepted because generated clients type the map loosely).
 */
const customFieldsSchema = guardKeys(
  z
    .record(
      z.string().min(1).max(MAX_FIELD_NAME),
      z.union([z.string().max(MAX_FIELD_VALUE), z.number().finite(), z.boolean()]).transform(String),
    )
    .refine((fields) => Object.keys(fields).length <= MAX_CUSTOM_FIELDS, `at most ${MAX_CUSTOM_FIELDS} custom fields`)
    .refine((fields) => !(RESERVED_FIELD in fields), `"${RESERVED_FIELD}" is reserved and cannot be a custom field`),
  'a custom field',
).optional();

const nameText = freeTextSchema(200).refine((v) => !/[\r\n]/.test(v), 'must not contain line breaks');
const mailbox = z.strictObject({ email: emailAddressSchema, name: nameText.optional() });

/**
 * A recipient's address is checked per recipient (an invalid one is dropped, not a 422), but bounded,
 * and free of U+0000: the dropped message is still stored, and PostgreSQL text cannot hold it.
 */
const recipientAddress = z
  .string()
  .max(1000)
  .refine((value) => !value.includes('\u0000'), 'must not contain a NUL character');
const copy = z.strictObject({ email: recipientAddress, name: nameText.optional(), customFields: customFieldsSchema });
const recipient = z.strictObject({
  email: recipientAddress,
  name: nameText.optional(),
  cc: z.array(copy).max(MAX_COPIES_PER_RECIPIENT).optional(),
  bcc: z.array(copy).max(MAX_COPIES_PER_RECIPIENT).optional(),
  customFields: customFieldsSchema,
});

const headersSchema = guardKeys(
  z.record(z.string(), z.string()).superRefine((headers, check) => {
    const entries = Object.entries(headers);
    if (entries.length > MAX_HEADERS)
      check.addIssue({ code: 'custom', message: `at most ${MAX_HEADERS} custom headers` });
    for (const [name, value] of entries) {
      const problem = customHeaderProblem(name, value);
      if (problem) check.addIssue({ code: 'custom', message: problem, path: [name] });
    }
  }),
  'a header',
).optional();

const attachment = z.strictObject({
  filename: z
    .string()
    .min(1)
    .max(255)
    .refine(
      (v) => !/[\u0000-\u001f\u007f/\\]/.test(v),
      'must be a plain file name without path separators or control characters',
    ),
  content: z.string().regex(/^[A-Za-z0-9+/\r\n]*={0,2}$/, 'must be base64'),
});

/**
 * The fields of `POST /subaccount/email/` (the reference's `EmailMessageObject`) before the checks
 * across fields: the send with a stored template (src/sending/template-send.ts) takes the same.
 */
export const sendRequestFields = z.strictObject({
  from: mailbox,
  replyTo: mailbox.optional(),
  to: z
    .array(recipient)
    .min(1, 'give at least one recipient')
    .max(MAX_RECIPIENTS_PER_REQUEST, `at most ${MAX_RECIPIENTS_PER_REQUEST} recipients per request`),
  subject: z.string().max(998),
  preText: z.string().max(1000).optional(),
  htmlBody: z.string().optional(),
  textBody: z.string().optional(),
  ampBody: z.string().optional(),
  ippool: plainTextSchema(100).pipe(z.string().min(1)).optional(),
  headers: headersSchema,
  trackOpens: z.boolean().optional(),
  trackClicks: z.boolean().optional(),
  groups: z
    .array(plainTextSchema(100).pipe(z.string().min(1)))
    .max(MAX_GROUPS)
    .optional(),
  attachments: z.array(attachment).max(MAX_ATTACHMENTS).optional(),
  webhookEndpoint: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  /** Send later (docs/sending.md, "Scheduled sending"): epoch ns or RFC 3339, at most 72 hours ahead. */
  sendAt: sendAtSchema.optional(),
  /**
   * The priority class (docs/shaping.md, "Fair queues and priority"); checked by `sendStream`
   * (src/sending/stream.ts), which refuses another value with its own code, `INVALID_STREAM`.
   */
  stream: z
    .string()
    .max(100)
    .optional()
    .meta({
      enum: ['transactional', 'bulk'],
      description:
        'Priority class: transactional mail is delivered before bulk mail. Default: transactional for at most 10 recipients (to, cc and bcc), else bulk.',
    }),
});

/** The body of `POST /subaccount/email/`: the spec's fields and the reference's `EmailMessageObject`. */
export const sendRequestSchema = sendRequestFields
  .refine((r) => r.htmlBody !== undefined || r.textBody !== undefined || r.ampBody !== undefined, {
    message: 'give htmlBody, textBody or ampBody',
    path: ['htmlBody'],
  })
  .refine(
    (r) => r.to.reduce((sum, to) => sum + (to.cc?.length ?? 0) + (to.bcc?.length ?? 0), 0) <= MAX_COPIES_PER_REQUEST,
    {
      message: `at most ${MAX_COPIES_PER_REQUEST} cc and bcc copies per request, all recipients together`,
      path: ['to'],
    },
  );

/** A validated send request. */
export type SendRequest = z.infer<typeof sendRequestSchema>;
