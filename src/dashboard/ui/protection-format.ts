/**
 * The automatic protection panel's logic that needs no DOM (docs/reputation.md, "Automatic
 * protection: blocked sub-accounts"): the settings in words, and the settings and a sub-account's
 * overrides between the forms and `/account/protection`. The API checks every value; a form sends
 * what was typed, so its refusal names the field.
 */
import { splitAddresses } from './reputation-format.js';
import { formatCount } from './shaping-format.js';

/** One line of the protection: the rates (percent) it blocks and warns at, and the volume it needs. */
export interface ProtectionLine {
  block: number;
  warn: number;
  minProcessed: number;
}

/** The settings of `GET /account/protection`: the account's, or a sub-account's in effect. */
export interface ProtectionSettings {
  enabled: boolean;
  hardBounceRate: ProtectionLine;
  spamComplaintRate: ProtectionLine;
  emails: string[];
  slackUrl: string | null;
}

/** What a sub-account sets of its own; the rest follows the account. */
export type ProtectionOverrides = Partial<Pick<ProtectionSettings, 'enabled' | 'hardBounceRate' | 'spamComplaintRate'>>;

/** `GET /account/protection` as it answers. */
export interface Protection {
  settings: ProtectionSettings;
  windowHours: number;
  subAccounts: { subAccountId: number; overrides: ProtectionOverrides; effective: ProtectionSettings }[];
}

/** The two lines, as the API names them, with their words. */
export const PROTECTION_LINES = [
  ['hardBounceRate', 'Hard-bounce rate'],
  ['spamComplaintRate', 'Spam-complaint rate'],
] as const;

/** The name of a line on the wire. */
export type LineName = (typeof PROTECTION_LINES)[number][0];

/** A line in words: `blocks at 10 %, warns at 5 %, judged from 100 processed` (0 turns a side off). */
export function protectionLineText(line: ProtectionLine): string {
  const block = line.block === 0 ? 'never blocks' : `blocks at ${formatCount(line.block)} %`;
  const warn = line.warn === 0 ? 'never warns' : `warns at ${formatCount(line.warn)} %`;
  return `${block}, ${warn}, judged from ${formatCount(line.minProcessed)} processed`;
}

/** Who hears of the protection's incidents besides the webhooks, in words. */
export function protectionNotifyText(settings: Pick<ProtectionSettings, 'emails' | 'slackUrl'>): string {
  const targets = [...settings.emails, ...(settings.slackUrl ? [`Slack (${settings.slackUrl})`] : [])];
  return targets.length === 0 ? 'no email or Slack (webhooks with the incident switch only)' : targets.join(', ');
}

/** A line as its form holds it: every field as typed. */
export interface LineDraft {
  block: string;
  warn: string;
  minProcessed: string;
}

/** The account's settings as the form holds them. */
export interface ProtectionDraft {
  enabled: boolean;
  hardBounceRate: LineDraft;
  spamComplaintRate: LineDraft;
  /** Addresses separated by commas. */
  emails: string;
  slackUrl: string;
}

/** What a sub-account's `enabled` override is in the form: none (the account's), on or off. */
export type EnabledChoice = 'account' | 'on' | 'off';

/** A sub-account's overrides as the form holds them: each line either its own (`own`) or the account's. */
export interface OverrideDraft {
  enabled: EnabledChoice;
  own: Record<LineName, boolean>;
  hardBounceRate: LineDraft;
  spamComplaintRate: LineDraft;
}

const lineDraft = (line: ProtectionLine): LineDraft => ({
  block: String(line.block),
  warn: String(line.warn),
  minProcessed: String(line.minProcessed),
});

/** A number typed in a field; other text is sent as typed, so the API's refusal names the field. */
const numberOrText = (text: string): number | string =>
  /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text.trim()) : text;

const lineBody = (draft: LineDraft) => ({
  block: numberOrText(draft.block),
  warn: numberOrText(draft.warn),
  minProcessed: numberOrText(draft.minProcessed),
});

/** The form of the account's settings. */
export const draftOfProtection = (settings: ProtectionSettings): ProtectionDraft => ({
  enabled: settings.enabled,
  hardBounceRate: lineDraft(settings.hardBounceRate),
  spamComplaintRate: lineDraft(settings.spamComplaintRate),
  emails: settings.emails.join(', '),
  slackUrl: settings.slackUrl ?? '',
});

/** The body of `PUT /account/protection`: every setting, addresses split at commas, an empty Slack URL as none. */
export function protectionBody(draft: ProtectionDraft): Record<string, unknown> {
  return {
    enabled: draft.enabled,
    hardBounceRate: lineBody(draft.hardBounceRate),
    spamComplaintRate: lineBody(draft.spamComplaintRate),
    emails: splitAddresses(draft.emails),
    slackUrl: draft.slackUrl.trim() === '' ? null : draft.slackUrl.trim(),
  };
}

/**
 * The form of a sub-account's overrides (`{}` for one without); a line it does not set starts from
 * the account's values, so turning it on begins where the account stands.
 */
export function draftOfOverride(overrides: ProtectionOverrides, account: ProtectionSettings): OverrideDraft {
  const enabled: EnabledChoice = overrides.enabled === undefined ? 'account' : overrides.enabled ? 'on' : 'off';
  return {
    enabled,
    own: {
      hardBounceRate: overrides.hardBounceRate !== undefined,
      spamComplaintRate: overrides.spamComplaintRate !== undefined,
    },
    hardBounceRate: lineDraft(overrides.hardBounceRate ?? account.hardBounceRate),
    spamComplaintRate: lineDraft(overrides.spamComplaintRate ?? account.spamComplaintRate),
  };
}

/** The body of `PUT /account/protection/subaccount/{id}`: only what the sub-account sets of its own. */
export function overrideBody(draft: OverrideDraft): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (draft.enabled !== 'account') body.enabled = draft.enabled === 'on';
  for (const [name] of PROTECTION_LINES) if (draft.own[name]) body[name] = lineBody(draft[name]);
  return body;
}

/** Whether a refusal's problems name `field` or a part of it (`emails` for `emails.1`). */
export const namesField = (problems: readonly string[], field: string): boolean =>
  problems.some((path) => path === field || path.startsWith(`${field}.`));
