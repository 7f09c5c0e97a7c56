import { randomToken, type SecretBox } from '../crypto/secrets.js';
import { ConflictError, NotFoundError } from '../errors.js';
import type { ListQuery } from '../model/paging.js';
import { nowNs, type Clock } from '../model/time.js';
import type { MailplaneStore, WebhookPatch, WebhookRecord, WebhookToggles } from '../store/index.js';
import { allToggles, WEBHOOK_TOGGLES } from '../lifecycle/webhook-toggles.js';
import type { MailplaneConfig } from '../mailplane-config.js';
import type { WebhookOutbox } from '../lifecycle/webhook-outbox.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface WebhooksDeps {
  readonly config: MailplaneConfig;
  readonly store: MailplaneStore;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly webhookOutbox: WebhookOutbox;
}

/** Prefix of webhook signing secrets, so a leaked one is recognisable by secret scanners. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + 32 base62 characters from the CSPRNG (about 190 bits). */
export function generateWebhookSecret(): string {
  return randomToken(32, WEBHOOK_SECRET_PREFIX);
}

/** What a caller gives to create a webhook; `url` already validated and normalised. */
export interface CreateWebhookInput extends Partial<WebhookToggles> {
  url: string;
  enabled?: boolean;
}

/** What a caller can change; `rotateSecret` rotates the signing secret (as {@link webhookService.rotateSecret}). */
export interface UpdateWebhookInput extends Partial<WebhookToggles> {
  url?: string;
  enabled?: boolean;
  rotateSecret?: boolean;
}

/** A webhook together with a signing secret in clear, for the one response that shows it. */
export interface WebhookWithSecret {
  webhook: WebhookRecord;
  /** Present only when this call generated the secret (create, or update with `rotateSecret`). */
  secret?: string;
}

/** Why mailplane disabled a webhook: written on the resource and in the log. */
export function disabledReason(failingSince: bigint, disableAfterMs: number, lastError: string): string {
  const since = new Date(Number(failingSince / 1_000_000n)).toISOString();
  const days = Math.round((disableAfterMs / 86_400_000) * 10) / 10;
  return `every delivery attempt failed for ${days} days (since ${since}) without a success; last error: ${lastError}`.slice(
    0,
    500,
  );
}

const notFound = (id: number | string) =>
  new NotFoundError('WEBHOOK_NOT_FOUND', `no webhook with id ${id} in this account`);

const duplicateUrl = (url: string) =>
  new ConflictError('WEBHOOK_URL_TAKEN', `a webhook with the URL ${url} already exists in this account`);

/** Only the switches present in `input`, so an update leaves the others alone. */
function givenToggles(input: Partial<WebhookToggles>): Partial<WebhookToggles> {
  return Object.fromEntries(
    WEBHOOK_TOGGLES.flatMap((toggle) => (input[toggle] === undefined ? [] : [[toggle, input[toggle]]])),
  );
}

/** Operations on the webhooks of one account, as the `/account/webhook` endpoints use them. */
export const webhookService = {
  /** Creates a webhook with a fresh signing secret; switches not given are off, `enabled` defaults to on. */
  async create(ctx: WebhooksDeps, accountId: number, input: CreateWebhookInput): Promise<Required<WebhookWithSecret>> {
    const secret = generateWebhookSecret();
    const outcome = await ctx.store.webhooks.create({
      accountId,
      url: input.url,
      enabled: input.enabled ?? true,
      ...allToggles(false),
      ...givenToggles(input),
      secretSealed: ctx.secrets.encrypt(secret),
      created: nowNs(ctx.clock),
    });
    // The account's next event reads its webhooks again rather than a remembered "none".
    ctx.webhookOutbox.forget(accountId);
    if (!outcome.ok) throw duplicateUrl(input.url);
    return { webhook: outcome.value, secret };
  },

  async list(ctx: WebhooksDeps, accountId: number, query: ListQuery): Promise<WebhookRecord[]> {
    return ctx.store.webhooks.list(accountId, query);
  },

  async get(ctx: WebhooksDeps, accountId: number, id: number | null): Promise<WebhookRecord> {
    const record = id === null ? null : await ctx.store.webhooks.get(accountId, id);
    if (!record) throw notFound(id ?? 'given');
    return record;
  },

  async update(
    ctx: WebhooksDeps,
    accountId: number,
    id: number | null,
    input: UpdateWebhookInput,
  ): Promise<WebhookWithSecret> {
    if (id === null) throw notFound('given');
    const rotation = input.rotateSecret === true ? this.rotation(ctx) : undefined;
    const patch: WebhookPatch = {
      ...givenToggles(input),
      updated: nowNs(ctx.clock),
      ...(input.url !== undefined && { url: input.url }),
      ...(input.enabled !== undefined && { enabled: input.enabled }),
      // Enabling starts afresh: the failure streak and mailplane's reason for disabling are gone.
      ...(input.enabled === true && { disabledReason: null, disabledAt: null, failingSince: null }),
      ...rotation?.patch,
    };
    const secret = rotation?.secret;
    const outcome = await ctx.store.webhooks.update(accountId, id, patch);
    ctx.webhookOutbox.forget(accountId);
    if (!outcome.ok) throw outcome.reason === 'not-found' ? notFound(id) : duplicateUrl(input.url ?? '');
    return secret === undefined ? { webhook: outcome.value } : { webhook: outcome.value, secret };
  },

  async delete(ctx: WebhooksDeps, accountId: number, id: number | null): Promise<WebhookRecord> {
    const deleted = id === null ? null : await ctx.store.webhooks.delete(accountId, id);
    ctx.webhookOutbox.forget(accountId);
    if (!deleted) throw notFound(id ?? 'given');
    return deleted;
  },

  /**
   * A new secret and the patch that makes it current: the stored one becomes the previous one,
   * signing too for `rotationOverlapMs`; a previous secret still signing is dropped (one overlap at a
   * time). The store swaps them in one write (`rotateTo`), so two rotations at once both leave
   * their secret signing: the later one current, the earlier one previous.
   */
  rotation(ctx: WebhooksDeps): { secret: string; patch: Omit<WebhookPatch, 'updated'> } {
    const secret = generateWebhookSecret();
    const until = nowNs(ctx.clock) + BigInt(ctx.config.webhooks.rotationOverlapMs) * 1_000_000n;
    return { secret, patch: { rotateTo: { secretSealed: ctx.secrets.encrypt(secret), previousUntil: until } } };
  },

  /** Rotates the signing secret: answers the new one (shown once) and the webhook. */
  async rotateSecret(ctx: WebhooksDeps, accountId: number, id: number | null): Promise<Required<WebhookWithSecret>> {
    const { webhook, secret } = await this.update(ctx, accountId, id, { rotateSecret: true });
    return { webhook, secret: secret! };
  },

  /**
   * The secrets that sign a delivery at `now`, in clear, for the delivery worker (never for a
   * response): the current one, and the previous one while its overlap lasts.
   */
  signingSecrets(ctx: WebhooksDeps, webhook: WebhookRecord, now: bigint = nowNs(ctx.clock)): string[] {
    const current = ctx.secrets.decrypt(webhook.secretSealed);
    const previous =
      webhook.previousSecretSealed !== null && (webhook.previousSecretUntil ?? 0n) > now
        ? ctx.secrets.decrypt(webhook.previousSecretSealed)
        : null;
    return previous === null ? [current] : [current, previous];
  },
};
