import { z } from 'zod';
import { epochNsSchema } from '../model/wire-schemas.js';
import type { InboundRouteRecord } from '../store/index.js';
import { MAX_WEBHOOK_URL_LENGTH } from '../webhook/url.js';

/** The longest pattern accepted: an address's limit (RFC 5321), and one `*`. */
export const MAX_PATTERN_LENGTH = 255;

// `action` is read as any short text and checked by the service, so that an unknown one gets its
// own stable code (ROUTE_ACTION_UNKNOWN) rather than the generic VALIDATION_FAILED.
const routeFields = {
  pattern: z
    .string()
    .max(MAX_PATTERN_LENGTH, `must be at most ${MAX_PATTERN_LENGTH} characters`)
    .meta({ description: 'An address, `prefix*@domain` or `*@domain` on a receiving domain (docs/inbound.md).' }),
  action: z.string().max(40).meta({ description: '`webhook`, `forward`, `store` or `refuse`.' }),
  url: z
    .string()
    .max(MAX_WEBHOOK_URL_LENGTH, `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`)
    .nullable()
    .meta({ description: '`webhook`: the URL the parsed message is posted to; `null` or absent otherwise.' }),
  forwardTo: z
    .string()
    .max(320, 'must be at most 320 characters')
    .nullable()
    .meta({ description: '`forward`: the address the message is forwarded to; `null` or absent otherwise.' }),
};

/** The body of `POST /subaccount/route`. */
export const createRouteBody = z.strictObject({
  pattern: routeFields.pattern,
  action: routeFields.action,
  url: routeFields.url.optional(),
  forwardTo: routeFields.forwardTo.optional(),
});

/** The body of `PUT /subaccount/route/{id}`: the fields to change. */
export const updateRouteBody = z.strictObject(routeFields).partial();

/** What a create or an update gives, after the body's schema. */
export type RouteInput = z.output<typeof updateRouteBody>;

/** The wire shape of {@link routeToWire}. */
export const routeWireSchema = z.object({
  id: z.int(),
  pattern: z.string(),
  kind: z.enum(['exact', 'prefix', 'catchAll']),
  action: z.enum(['webhook', 'forward', 'store', 'refuse']),
  url: z.string().nullable(),
  forwardTo: z.string().nullable(),
  created: epochNsSchema,
  updated: epochNsSchema,
});

/** A route and the webhook signing secret this very request made: shown in that answer only. */
export const routeWithSecretWireSchema = routeWireSchema.extend({
  secret: z.string().optional().meta({ description: 'A `webhook` route’s signing secret (`whsec_…`), shown once.' }),
});

/** A route as the API answers it: never its signing secret. */
export function routeToWire(route: InboundRouteRecord): z.output<typeof routeWireSchema> {
  return {
    id: route.id,
    pattern: route.pattern,
    kind: route.kind,
    action: route.action,
    url: route.url,
    forwardTo: route.forwardTo,
    created: route.created,
    updated: route.updated,
  };
}
