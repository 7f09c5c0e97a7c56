/**
 * The checks of `createMailplane`'s options: one zod schema, the single place that says what each
 * option accepts (the `resolve*Config` functions only fill defaults in). Every bad option is
 * reported at once, in one {@link MailplaneOptionsError}, before anything is built.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { MIN_SECRET_LENGTH } from './crypto/secrets.js';
import { DKIM_KEY_SIZES, DNS_LABEL_PATTERN, HOST_NAME_PATTERN } from './domain/config.js';
import { MailplaneOptionsError, type OptionIssue } from './errors.js';
import { MAX_RETENTION_DAYS } from './retention/config.js';
import { protectionOptionsSchema } from './alerts/protection.js';
import { isEmailAddress } from './model/email-address.js';
import { checkShapingRules } from './shaping/rule-check.js';

/** A whole number in a range, every failure worded as what is accepted. */
function whole(min: number, max?: number, unit = ''): z.ZodInt {
  const suffix = unit === '' ? '' : ` (${unit})`;
  const text =
    max === undefined ? `a whole number of at least ${min}${suffix}` : `a whole number from ${min} to ${max}${suffix}`;
  const schema = z.int({ error: text }).min(min, { error: text });
  return max === undefined ? schema : schema.max(max, { error: text });
}

const milliseconds = (min = 1) => whole(min, undefined, 'milliseconds');
const port = whole(1, 65_535, 'a TCP port');
const fraction = z
  .number({ error: 'a number from 0 to 1' })
  .min(0, { error: 'a number from 0 to 1' })
  .max(1, { error: 'a number from 0 to 1' });
const fn = (what: string) => z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', what);
/** An object with these methods (the shape of a service the host plugs in). */
const withMethods = (what: string, methods: readonly string[]) =>
  z.custom<object>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      methods.every((name) => typeof (value as Record<string, unknown>)[name] === 'function'),
    `${what} (an object with ${methods.map((name) => `${name}()`).join(', ')})`,
  );
const httpUrl = (what: string) =>
  z
    .string({ error: what })
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), { error: what });
// An empty list is no retry at all.
const retryDelays = z.array(milliseconds(0), { error: 'a list of delays in milliseconds, e.g. [600000, 1800000]' });
const dnsLabel = z.string().regex(DNS_LABEL_PATTERN, { error: 'one DNS label (letters, digits, hyphens; 63 at most)' });
const hostName = z.string().regex(HOST_NAME_PATTERN, { error: 'a host name with a dot, e.g. bounces.example.net' });
const dnsServer = z.strictObject(
  {
    host: z.string().refine((host) => isIP(host) !== 0, { error: 'an IPv4 or IPv6 address (no host name)' }),
    port,
  },
  { error: 'a DNS server { host, port }' },
);
const storeParts = ['accounts', 'subAccounts', 'domains', 'messages', 'jobs', 'settings'] as const;

/** What `createMailplane` accepts: the fields of `MailplaneOptions` and their ranges. */
export const mailplaneOptionsSchema = z.strictObject(
  {
    store: z.custom<object>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        typeof (value as { close?: unknown }).close === 'function' &&
        storeParts.every((part) => part === 'settings' || typeof (value as Record<string, unknown>)[part] === 'object'),
      'a MailplaneStore, e.g. `await openKyselyStore({ url })` from mailplane/storage/kysely',
    ),
    secret: z
      .string({
        error: `a string of at least ${MIN_SECRET_LENGTH} characters; make one with \`openssl rand -hex 32\``,
      })
      .min(MIN_SECRET_LENGTH, {
        error: `a string of at least ${MIN_SECRET_LENGTH} characters; make one with \`openssl rand -hex 32\``,
      }),
    http: z.strictObject({ bodyLimitBytes: whole(1, undefined, 'bytes').optional() }).optional(),
    rateLimits: z
      .union(
        [z.literal(false), z.strictObject({ requestsPerMinute: whole(1), recipientsPerMinute: whole(1) }).partial()],
        {
          error: 'false, or { requestsPerMinute, recipientsPerMinute } (whole numbers of at least 1)',
        },
      )
      .optional(),
    domains: z
      .strictObject({
        dkimSelector: dnsLabel,
        returnPathLabel: dnsLabel,
        returnPathTarget: hostName,
        trackingLabel: dnsLabel,
        trackingTarget: hostName,
        spfInclude: hostName,
        dkimRotationGraceDays: whole(1, undefined, 'days'),
        dkimAutoRotateDays: whole(0, undefined, 'days; 0: never'),
        dkimKeyBits: z.literal(DKIM_KEY_SIZES, { error: '1024 or 2048 (bits)' }),
      })
      .partial()
      .optional(),
    trackingBaseUrl: httpUrl('an http:// or https:// URL, e.g. https://mail.example.com/t').optional(),
    dns: z
      .strictObject({
        servers: z.array(dnsServer),
        timeoutMs: milliseconds(),
        retries: whole(0),
        rdapBaseUrl: httpUrl('an http:// or https:// URL, or null to skip RDAP').nullable(),
      })
      .partial()
      .optional(),
    delivery: z
      .strictObject({
        mxPort: port,
        concurrency: whole(1),
        pageSize: whole(1),
        retryDelaysMs: retryDelays,
        connectionTimeoutMs: milliseconds(),
        greetingTimeoutMs: milliseconds(),
        socketTimeoutMs: milliseconds(),
        busyRetryDelayMs: milliseconds(0),
        queueLifetimeMs: milliseconds(),
      })
      .partial()
      .optional(),
    shaping: z
      .strictObject({
        rules: z.custom<unknown[]>((value) => checkShapingRules(value).ok, {
          error: (issue) => {
            const checked = checkShapingRules(issue.input);
            return checked.ok
              ? 'a list of shaping rules'
              : checked.problems.map((p) => `rule ${p.index}: ${p.message}`).join('; ');
          },
        }),
        defaultRules: z.boolean({ error: 'true or false' }),
        throttleWaitMs: milliseconds(),
        quietPeriodMs: milliseconds(),
        recoveryStep: z.number({ error: 'a number above 1' }).gt(1, { error: 'a number above 1' }),
        minFactor: z
          .number({ error: 'a number above 0, at most 1' })
          .gt(0, { error: 'a number above 0, at most 1' })
          .max(1, { error: 'a number above 0, at most 1' }),
        slowDownGapMs: milliseconds(0),
        unlimitedPauseMs: milliseconds(),
        leaseMs: milliseconds(),
        cacheMs: milliseconds(0),
      })
      .partial()
      .optional(),
    warmup: z
      .strictObject({
        plan: z.strictObject({
          stages: z.array(whole(1)).min(1, { error: 'at least one stage (daily caps)' }),
          providerStages: z.record(z.string(), z.array(whole(1))).optional(),
        }),
        thresholds: z.strictObject({ maxBounceRate: fraction, maxDeferralRate: fraction, minProblems: whole(0) }),
      })
      .partial()
      .optional(),
    webhooks: z
      .strictObject({
        allowPrivateTargets: z.boolean({ error: 'true or false' }),
        timeoutMs: milliseconds(),
        connectTimeoutMs: milliseconds(),
        bodyTimeoutMs: milliseconds(),
        concurrency: whole(1),
        maxConcurrentPerWebhook: whole(1),
        maxConcurrentPerAccount: whole(1),
        busyDelayMs: milliseconds(),
        retryDelaysMs: retryDelays,
        disableAfterMs: milliseconds(0),
        rotationOverlapMs: milliseconds(0),
        replayBatchSize: whole(1),
        replaysPerHour: whole(1),
      })
      .partial()
      .optional(),
    transport: z
      .union([withMethods('a Transport', ['send', 'close']), fn('a function')], {
        error: 'a Transport (send(), close()) or a function of { resolver, delivery } returning one',
      })
      .optional(),
    tpspTransport: fn('a function of a TPSP record returning a Transport').optional(),
    clock: withMethods('a Clock', ['now']).optional(),
    ids: withMethods('an IdGenerator', ['next']).optional(),
    logger: withMethods('a Logger', ['info', 'warn', 'error']).optional(),
    jobs: z
      .strictObject({
        concurrency: whole(1),
        lanes: z.record(z.string(), whole(1)),
        transactionalSlots: z.record(z.string(), whole(0)),
        pollIntervalMs: milliseconds(),
        leaseMs: milliseconds(),
        maxAttempts: whole(1),
        backoff: z.union([z.strictObject({}).loose(), fn('a function')], {
          error: '{ baseMs, factor, maxMs, jitter } or a function of the attempt',
        }),
        shutdownGraceMs: milliseconds(0),
        workerId: z.string().min(1, { error: 'a non-empty string' }),
        random: fn('a function returning a number in [0, 1)'),
      })
      .partial()
      .optional(),
    retention: z
      .strictObject({
        days: whole(0, MAX_RETENTION_DAYS, 'days; 0 keeps everything'),
        batchSize: whole(1),
        batchesPerRun: whole(1),
        intervalMs: milliseconds(),
      })
      .partial()
      .optional(),
    sandbox: withMethods('a running sandbox, `await startSandbox()`', ['attach', 'close']).optional(),
    metrics: z.strictObject({ token: z.string().min(1, { error: 'a non-empty bearer token' }).optional() }).optional(),
    templateCache: z
      .strictObject({ maxTemplates: whole(0), maxCharacters: whole(0) })
      .partial()
      .optional(),
    alerts: z
      .strictObject({
        from: z
          .string({ error: 'an email address on a verified sending domain, e.g. alerts@mail.example.com' })
          .refine(isEmailAddress, {
            error: 'an email address on a verified sending domain, e.g. alerts@mail.example.com',
          }),
      })
      .partial()
      .optional(),
    reputation: z
      .strictObject({
        evaluationIntervalMs: milliseconds(1000),
        protection: protectionOptionsSchema,
      })
      .partial()
      .optional(),
    inbound: z
      .strictObject({
        hostname: z.string().regex(HOST_NAME_PATTERN, { error: 'a host name with a dot, e.g. mx.example.net' }),
      })
      .partial()
      .optional(),
  },
  { error: 'an object of options: { store, secret, … }' },
);

/** Option names whose values are never printed (only their length is). */
const SECRET_OPTIONS = /(^|\.)(secret|token|password)$/i;

/** A given value in words, short; secrets by their length only. */
function describeValue(path: string, value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string' && SECRET_OPTIONS.test(path)) return `a string of ${value.length} characters`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The option names an object schema at `path` knows (for an unknown one's message). */
function knownKeys(path: readonly PropertyKey[]): string[] {
  let schema: z.ZodType = mailplaneOptionsSchema;
  for (const key of [...path, null]) {
    while (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) schema = schema.unwrap() as z.ZodType;
    if (schema instanceof z.ZodUnion) {
      schema = (schema.options as z.ZodType[]).find((option) => option instanceof z.ZodObject) ?? schema;
    }
    if (!(schema instanceof z.ZodObject)) return [];
    if (key === null) return Object.keys(schema.shape);
    schema = (schema.shape as Record<string, z.ZodType>)[String(key)] ?? z.never();
  }
  return [];
}

/** The value at `path` in `input`. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>(
    (value, key) =>
      typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined,
    input,
  );
}

/** One {@link OptionIssue} per bad option (an unknown key is one too). */
function optionIssues(input: unknown, issues: readonly z.core.$ZodIssue[]): OptionIssue[] {
  return issues.flatMap((issue): OptionIssue[] => {
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeys(issue.path);
      return issue.keys.map((key) => ({
        path: [...issue.path, key].join('.'),
        received: 'an option mailplane does not know (a typo?)',
        expected: `one of ${known.join(', ')}`,
      }));
    }
    if (issue.code === 'invalid_union') {
      // An object given where an object or something else is accepted (`rateLimits`): the object's own faults.
      const value = valueAt(input, issue.path);
      const branch = issue.errors.find(
        (list) => list.length > 0 && list.every((inner) => inner.path.length > 0 || inner.code === 'unrecognized_keys'),
      );
      if (typeof value === 'object' && value !== null && branch) {
        return optionIssues(
          input,
          branch.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] })),
        );
      }
    }
    const path = issue.path.join('.') || '(options)';
    return [{ path, received: describeValue(path, valueAt(input, issue.path)), expected: issue.message }];
  });
}

/**
 * Checks `createMailplane`'s options against {@link mailplaneOptionsSchema}; throws one
 * {@link MailplaneOptionsError} naming every bad option.
 */
export function checkMailplaneOptions(options: unknown): void {
  const result = mailplaneOptionsSchema.safeParse(options);
  if (!result.success) throw new MailplaneOptionsError(optionIssues(options, result.error.issues));
}
