/**
 * The automatic protection's settings (docs/reputation.md, "Automatic protection"): the lines at
 * which a sub-account's hard-bounce and spam-complaint rates block it or open a warning, the volume
 * below which a rate does not count, and who is told. The instance's options give the defaults, an
 * account may change them (`PUT /account/protection`), and a sub-account may have overrides of its
 * own (`PUT /account/protection/subaccount/{id}`), set by the account: a tenant never loosens its
 * own protection.
 */
import { z } from 'zod';
import { emailAddressSchema } from '../model/email-address.js';
import type { ProtectionSettingsRecord } from '../store/index.js';
import { MAX_WEBHOOK_URL_LENGTH } from '../webhook/url.js';
import { MAX_ALERT_EMAILS } from './alert-wire.js';
import { MAX_PROCESSED_COUNT_THRESHOLD } from './codes.js';

/** One rate's two lines, in percent of the window's processed mail, and the volume it needs. */
export interface ProtectionLine {
  /** At or above it the sub-account is blocked (0 never blocks). */
  block: number;
  /** At or above it (and under `block`) a warning incident opens (0 never warns). */
  warn: number;
  /** The least processed volume in the window before the rate counts. */
  minProcessed: number;
}

/** The protection of an account, or in effect for one sub-account. */
export interface ProtectionSettings {
  enabled: boolean;
  hardBounceRate: ProtectionLine;
  spamComplaintRate: ProtectionLine;
  /** Addresses told of every protection incident, by email. */
  emails: string[];
  /** A Slack-compatible incoming webhook told of every protection incident; `null` for none. */
  slackUrl: string | null;
}

/** What a sub-account may have of its own: any of the account's settings but where to notify. */
export type ProtectionOverrides = Partial<Pick<ProtectionSettings, 'enabled' | 'hardBounceRate' | 'spamComplaintRate'>>;

/**
 * The defaults: a hard-bounce rate of 10 % blocks and 5 % warns (Amazon SES reviews an account at
 * 5 % and pauses it at 10 %), a spam-complaint rate of 0.3 % blocks and 0.1 % warns (Gmail's sender
 * guidelines: stay under 0.1 %, never reach 0.3 %); bounces count from 100 messages, complaints
 * from 1,000 (one complaint in 100 messages is 1 %: too few to judge a sender by).
 */
export const DEFAULT_PROTECTION: ProtectionSettings = {
  enabled: true,
  hardBounceRate: { block: 10, warn: 5, minProcessed: 100 },
  spamComplaintRate: { block: 0.3, warn: 0.1, minProcessed: 1000 },
  emails: [],
  slackUrl: null,
};

/** The window the protection measures: the current hour and the 24 before it. */
export const PROTECTION_WINDOW_HOURS = 24;

/** The least `minProcessed` a line may have: the evaluation reads only sub-accounts with this much mail. */
export const MIN_PROTECTION_VOLUME = 10;

const rate = z.number().min(0, 'must be at least 0').max(100, 'must be at most 100');
const lineSchema = z
  .strictObject({
    block: rate,
    warn: rate,
    minProcessed: z
      .int()
      .min(MIN_PROTECTION_VOLUME, `must be at least ${MIN_PROTECTION_VOLUME}`)
      .max(MAX_PROCESSED_COUNT_THRESHOLD, `must be at most ${MAX_PROCESSED_COUNT_THRESHOLD}`),
  })
  .refine((line) => line.block === 0 || line.warn <= line.block, {
    message: 'warn must not be above block',
    path: ['warn'],
  });

/** The body of `PUT /account/protection`: any of the settings, at least one; the others are kept. */
export const accountProtectionBody = z
  .strictObject({
    enabled: z.boolean().optional(),
    hardBounceRate: lineSchema.optional(),
    spamComplaintRate: lineSchema.optional(),
    emails: z.array(emailAddressSchema).max(MAX_ALERT_EMAILS, `at most ${MAX_ALERT_EMAILS} addresses`).optional(),
    slackUrl: z
      .string()
      .max(MAX_WEBHOOK_URL_LENGTH, `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`)
      .nullable()
      .optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'give at least one setting to change');

/** The body of `PUT /account/protection/subaccount/{id}`: the sub-account's overrides, replacing its old ones. */
export const subAccountProtectionBody = z.strictObject({
  enabled: z.boolean().optional(),
  hardBounceRate: lineSchema.optional(),
  spamComplaintRate: lineSchema.optional(),
});

/** The instance's defaults: {@link DEFAULT_PROTECTION} with the options' changes (checked at start). */
export const protectionOptionsSchema = z.strictObject({
  enabled: z.boolean().optional(),
  hardBounceRate: lineSchema.optional(),
  spamComplaintRate: lineSchema.optional(),
});

/** The settings in effect for an account and each sub-account with overrides. */
export interface ProtectionView {
  account: ProtectionSettings;
  subAccounts: Map<number, { overrides: ProtectionOverrides; effective: ProtectionSettings }>;
}

/**
 * The settings of an account's stored rows over the instance's defaults. A stored row that no
 * longer parses (written by hand) counts as absent rather than stopping the evaluation.
 */
export function protectionView(
  defaults: ProtectionSettings,
  rows: readonly ProtectionSettingsRecord[],
): ProtectionView {
  const accountRow = rows.find((row) => row.subAccountId === 0);
  const stored = accountRow ? accountProtectionBody.safeParse(accountRow.settings) : undefined;
  const account: ProtectionSettings = { ...defaults, ...(stored?.success ? stored.data : {}) };
  const subAccounts = new Map<number, { overrides: ProtectionOverrides; effective: ProtectionSettings }>();
  for (const row of rows) {
    if (row.subAccountId === 0) continue;
    const parsed = subAccountProtectionBody.safeParse(row.settings);
    if (!parsed.success) continue;
    const overrides: ProtectionOverrides = parsed.data;
    subAccounts.set(row.subAccountId, { overrides, effective: { ...account, ...overrides } });
  }
  return { account, subAccounts };
}

/** The settings in effect for `subAccountId`. */
export const protectionFor = (view: ProtectionView, subAccountId: number): ProtectionSettings =>
  view.subAccounts.get(subAccountId)?.effective ?? view.account;
