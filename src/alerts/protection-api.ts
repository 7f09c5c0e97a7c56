/**
 * `/account/protection`: the account reads and changes its automatic protection, and sets a
 * sub-account's overrides (docs/reputation.md, "Automatic protection").
 */
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../errors.js';
import { nowNs, type Clock } from '../model/time.js';
import { checkPostTargetUrl } from '../webhook/target.js';
import type { IncidentRecord, MailplaneStore } from '../store/index.js';
import { notifyIncident, type IncidentChange, type IncidentNotifyContext } from './notify.js';
import {
  protectionView,
  type ProtectionOverrides,
  type ProtectionSettings,
  type ProtectionView,
  type accountProtectionBody,
  type subAccountProtectionBody,
} from './protection.js';
import type { MailplaneConfig } from '../mailplane-config.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface ProtectionApiDeps {
  readonly config: MailplaneConfig;
  readonly store: MailplaneStore;
  readonly clock: Clock;
}

// Built afresh for each use: one zod schema object reused inside another becomes a local `$ref`
// in its JSON schema, which the OpenAPI document cannot resolve.
const lineWire = () => z.object({ block: z.number(), warn: z.number(), minProcessed: z.int() });
const settingsWire = () =>
  z.object({
    enabled: z.boolean(),
    hardBounceRate: lineWire(),
    spamComplaintRate: lineWire(),
    emails: z.array(z.string()),
    slackUrl: z.string().nullable(),
  });

/** The wire shape of `GET /account/protection`. */
export const protectionWireSchema = z.object({
  settings: settingsWire().meta({
    description: "The account's protection (the instance's defaults with its changes).",
  }),
  windowHours: z
    .int()
    .meta({ description: 'The window the rates are measured over (the current hour and 24 before it).' }),
  subAccounts: z.array(
    z.object({
      subAccountId: z.int(),
      overrides: z
        .object({ enabled: z.boolean(), hardBounceRate: lineWire(), spamComplaintRate: lineWire() })
        .partial(),
      effective: settingsWire(),
    }),
  ),
});

type ProtectionWire = z.output<typeof protectionWireSchema>;

const wire = (settings: ProtectionSettings): ProtectionWire['settings'] => structuredClone(settings);

function viewToWire(view: ProtectionView, windowHours: number): ProtectionWire {
  return {
    settings: wire(view.account),
    windowHours,
    subAccounts: [...view.subAccounts].map(([subAccountId, { overrides, effective }]) => ({
      subAccountId,
      overrides: structuredClone(overrides),
      effective: wire(effective),
    })),
  };
}

async function readView(ctx: ProtectionApiDeps, accountId: number): Promise<ProtectionView> {
  return protectionView(ctx.config.reputation.protection, await ctx.store.alerts.protection(accountId));
}

/** The account's protection and every sub-account's overrides. */
export async function getProtection(ctx: ProtectionApiDeps, accountId: number, windowHours: number) {
  return viewToWire(await readView(ctx, accountId), windowHours);
}

/**
 * Changes the settings given and keeps the others: the whole result is stored, so a later change
 * of the instance's defaults no longer moves this account's lines. A `slackUrl` is checked as
 * webhook targets are (422 `PROTECTION_SLACK_URL_REFUSED`).
 */
export async function updateProtection(
  ctx: ProtectionApiDeps,
  accountId: number,
  input: z.output<typeof accountProtectionBody>,
  windowHours: number,
) {
  if (input.slackUrl !== undefined) {
    const checked = checkPostTargetUrl(input.slackUrl, {
      allowPrivateTargets: ctx.config.webhooks.allowPrivateTargets,
    });
    if (!checked.ok)
      throw new ValidationError(
        `the body is not valid (slackUrl: ${checked.message})`,
        [{ path: 'slackUrl', message: checked.message }],
        'PROTECTION_SLACK_URL_REFUSED',
      );
    input = { ...input, slackUrl: checked.url };
  }
  const current = await readView(ctx, accountId);
  const next: ProtectionSettings = { ...current.account, ...input };
  await ctx.store.alerts.setProtection(accountId, 0, { ...next }, nowNs(ctx.clock));
  return getProtection(ctx, accountId, windowHours);
}

/**
 * Replaces a sub-account's overrides (`{}` or `null` removes them: it follows the account's
 * settings again); 406 `SUBACCOUNT_NOT_FOUND` for a sub-account not the account's.
 */
export async function setSubAccountProtection(
  ctx: ProtectionApiDeps,
  accountId: number,
  subAccountId: number | null,
  overrides: z.output<typeof subAccountProtectionBody> | null,
  windowHours: number,
) {
  const stored: ProtectionOverrides | null = overrides && Object.keys(overrides).length > 0 ? overrides : null;
  const saved =
    subAccountId !== null &&
    subAccountId > 0 &&
    (await ctx.store.alerts.setProtection(accountId, subAccountId, stored && { ...stored }, nowNs(ctx.clock)));
  if (!saved)
    throw new NotFoundError(
      'SUBACCOUNT_NOT_FOUND',
      `no sub-account with id ${subAccountId ?? 'given'} in this account`,
    );
  return getProtection(ctx, accountId, windowHours);
}

/**
 * Queues the notifications of an automatic protection's incident (a block, a warning, a paused
 * source) through `store`: to the account's webhooks, and to the `emails` and `slackUrl` of the
 * account's protection settings.
 */
export async function notifyProtectionIncident(
  ctx: IncidentNotifyContext & { readonly config: { readonly reputation: { protection: ProtectionSettings } } },
  store: MailplaneStore,
  incident: IncidentRecord,
  change: IncidentChange,
): Promise<void> {
  const view = protectionView(ctx.config.reputation.protection, await store.alerts.protection(incident.accountId));
  await notifyIncident(ctx, store, { incident, change, emails: view.account.emails, slackUrl: view.account.slackUrl });
}
