import { z } from 'zod';
import { parseResourceId } from '../../model/ids.js';
import { listQuerySchema, queryInt } from '../../model/paging.js';
import type { WebhookToggle } from '../../store/index.js';
import { WEBHOOK_TOGGLES } from '../../lifecycle/webhook-toggles.js';
import { webhookUrlSchema } from '../../webhook/url.js';
import {
  webhookDeliveryToWire,
  webhookDeliveryWireSchema,
  webhookToWire,
  webhookUpdateWireSchema,
  webhookWireSchema,
  webhookWithSecretToWire,
  webhookWithSecretWireSchema,
} from '../../webhook/webhook-wire.js';
import { deletedSchema } from '../../model/wire-schemas.js';
import { webhookService } from '../../webhook/webhooks.js';
import { queuedReplayToWire, queuedReplayWireSchema, startReplay } from '../../webhook/replay.js';
import { EventType } from '../../store/index.js';
import { route, type AnyRoute } from '../route.js';

/** The switches, each an optional boolean, as the reference's `CreateWebhookRequest` has them (and mailplane's `incident`). */
const toggleFields = Object.fromEntries(WEBHOOK_TOGGLES.map((toggle) => [toggle, z.boolean().optional()])) as Record<
  WebhookToggle,
  z.ZodOptional<z.ZodBoolean>
>;

const createBody = z.strictObject({
  url: webhookUrlSchema,
  enabled: z.boolean().optional(),
  ...toggleFields,
});

// `rotateSecret` is mailplane's addition: the only way to get a new signing secret, shown once.
const updateBody = z
  .strictObject({
    url: webhookUrlSchema.optional(),
    enabled: z.boolean().optional(),
    rotateSecret: z.boolean().optional(),
    ...toggleFields,
  })
  .refine((body) => Object.keys(body).length > 0, 'give at least one field to change');

const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** A replay bound: ns since the epoch (an integer, or a string of digits for exactness) or an RFC 3339 time. */
const replayBound = z.union([z.number().int().nonnegative(), z.string().max(40)]).transform((value, ctx) => {
  if (typeof value === 'number') return BigInt(value);
  if (/^[0-9]{1,19}$/.test(value)) return BigInt(value);
  const ms = RFC_3339.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isFinite(ms) && ms >= 0) return BigInt(ms) * 1_000_000n;
  ctx.addIssue({ code: 'custom', message: 'must be nanoseconds since the epoch or an RFC 3339 time' });
  return z.NEVER;
});

// mailplane's addition (docs/webhooks.md): `eventTypes` are the spec's event type numbers 0-8.
const replayBody = z.strictObject({
  from: replayBound,
  to: replayBound,
  eventTypes: z.array(z.enum(EventType)).max(9).optional(),
});

/** The delivery log's page: at most 100 attempts (clamped, as the other lists clamp), skipping `offset`. */
const deliveryQuery = z.object({
  limit: queryInt(1)
    .optional()
    .transform((v) => Math.min(v ?? 20, 100)),
  offset: queryInt(0)
    .optional()
    .transform((v) => v ?? 0),
});

/** The signing secret, in the answers that make one (creation, rotation, an update that rotates): shown that once. */
const WEBHOOK_SECRET = { names: ['secret'], origin: 'created' } as const;

/** `/account/webhook`: the webhooks of the calling account. */
export const webhookRoutes: AnyRoute[] = [
  route({
    method: 'POST',
    path: '/account/webhook',
    auth: 'account',
    response: webhookWithSecretWireSchema,
    secrets: WEBHOOK_SECRET,
    body: createBody,
    handle: async ({ ctx, principal, body }) => {
      const { webhook, secret } = await webhookService.create(ctx, principal.account.id, body);
      // 200 as the reference's createWebhook says (sub-account creation is the one that says 201).
      return { body: webhookWithSecretToWire(webhook, secret) };
    },
  }),
  route({
    method: 'GET',
    path: '/account/webhook',
    auth: 'account',
    response: z.array(webhookWireSchema),
    query: listQuerySchema,
    handle: async ({ ctx, principal, query }) => {
      const webhooks = await webhookService.list(ctx, principal.account.id, query);
      return { body: webhooks.map(webhookToWire) };
    },
  }),
  route({
    method: 'GET',
    path: '/account/webhook/:webhook_id',
    auth: 'account',
    response: webhookWireSchema,
    handle: async ({ ctx, principal, params }) => {
      const webhook = await webhookService.get(ctx, principal.account.id, parseResourceId(params.webhook_id));
      return { body: webhookToWire(webhook) };
    },
  }),
  route({
    method: 'PUT',
    path: '/account/webhook/:webhook_id',
    auth: 'account',
    response: webhookUpdateWireSchema,
    secrets: WEBHOOK_SECRET,
    body: updateBody,
    handle: async ({ ctx, principal, params, body }) => {
      const { webhook, secret } = await webhookService.update(
        ctx,
        principal.account.id,
        parseResourceId(params.webhook_id),
        body,
      );
      return { body: secret === undefined ? webhookToWire(webhook) : webhookWithSecretToWire(webhook, secret) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/account/webhook/:webhook_id',
    auth: 'account',
    response: deletedSchema,
    handle: async ({ ctx, principal, params }) => {
      const deleted = await webhookService.delete(ctx, principal.account.id, parseResourceId(params.webhook_id));
      return { body: { id: deleted.id, message: `Webhook (${deleted.url}) has been deleted successfully.` } };
    },
  }),
  // mailplane's addition: a new secret, shown once; the previous one keeps signing for 24 hours.
  route({
    method: 'POST',
    path: '/account/webhook/:webhook_id/secret/rotate',
    auth: 'account',
    response: webhookWithSecretWireSchema,
    secrets: WEBHOOK_SECRET,
    handle: async ({ ctx, principal, params }) => {
      const { webhook, secret } = await webhookService.rotateSecret(
        ctx,
        principal.account.id,
        parseResourceId(params.webhook_id),
      );
      return { body: webhookWithSecretToWire(webhook, secret) };
    },
  }),
  // mailplane's addition: queues the stored events of a time range again (202: they go out as jobs).
  route({
    method: 'POST',
    path: '/account/webhook/:webhook_id/replay',
    auth: 'account',
    response: queuedReplayWireSchema,
    successStatus: 202,
    body: replayBody,
    handle: async ({ ctx, principal, params, body }) => {
      const replay = await startReplay(ctx, principal.account.id, parseResourceId(params.webhook_id), body);
      return { body: queuedReplayToWire(replay) };
    },
  }),
  // mailplane's addition: the webhook's delivery log, newest attempt first.
  route({
    method: 'GET',
    path: '/account/webhook/:webhook_id/delivery',
    auth: 'account',
    response: z.array(webhookDeliveryWireSchema),
    query: deliveryQuery,
    handle: async ({ ctx, principal, params, query }) => {
      // 406 for a webhook the account does not have, as every other webhook route.
      const webhook = await webhookService.get(ctx, principal.account.id, parseResourceId(params.webhook_id));
      const log = await ctx.store.webhooks.listDeliveries(principal.account.id, webhook.id, query);
      return { body: log.map(webhookDeliveryToWire) };
    },
  }),
];
