/**
 * The routes of a sub-account's inbound mail (`/subaccount/route`, docs/inbound.md "Routes"): each
 * one checked whole before anything is stored.
 */
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { emailAddressProblem } from '../model/email-address.js';
import type { ListQuery } from '../model/paging.js';
import { nowNs, type Clock } from '../model/time.js';
import type { InboundAction, InboundRoutePatch, InboundRouteRecord, MailplaneStore } from '../store/index.js';
import { checkPostTargetUrl } from '../webhook/target.js';
import { generateWebhookSecret } from '../webhook/webhooks.js';
import { domainOfAddress } from './forward-job.js';
import { parsePattern, type ParsedPattern } from './patterns.js';
import type { RouteInput } from './route-wire.js';
import type { SecretBox } from '../crypto/secrets.js';
import type { MailplaneConfig } from '../mailplane-config.js';
import type { InboundRecipientDirectory } from '../domain/recipient-directory.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface InboundRoutesDeps {
  readonly config: MailplaneConfig;
  readonly store: MailplaneStore;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly inboundRecipients: InboundRecipientDirectory;
}

const ACTIONS: readonly InboundAction[] = ['webhook', 'forward', 'store', 'refuse'];

/** One problem of a route: its stable code, the field and plain words. */
interface RouteIssue {
  code: string;
  path: string;
  message: string;
}

/** Every problem at once, the first one's code on the answer: a 422 that writes nothing. */
function refuse(issues: readonly RouteIssue[]): never {
  const [first] = issues;
  throw new ValidationError(
    `the body is not valid (${first!.path}: ${first!.message})`,
    issues.map(({ path, message }) => ({ path, message })),
    first!.code,
  );
}

const notFound = (id: number | string) =>
  new NotFoundError('ROUTE_NOT_FOUND', `no route with id ${id} in this sub-account`);
const duplicate = (pattern: string) =>
  new ConflictError('ROUTE_PATTERN_EXISTS', `a route for ${pattern} already exists in this sub-account`);
const notReceiving = (domain: string): RouteIssue => ({
  code: 'ROUTE_DOMAIN_NOT_RECEIVING',
  path: 'pattern',
  message: `${domain} is not a domain of this sub-account that receives mail; enable receiving on it first`,
});

/** The checked fields of a route, as stored. */
type ResolvedRoute = ParsedPattern & { action: InboundAction; url: string | null; forwardTo: string | null };

/** The webhook URL, or why it is refused (the same checks as webhooks' targets). */
function checkRouteUrl(ctx: InboundRoutesDeps, raw: string): RouteIssue | { url: string } {
  const checked = checkPostTargetUrl(raw, { allowPrivateTargets: ctx.config.webhooks.allowPrivateTargets });
  if (!checked.ok) return { code: 'ROUTE_URL_REFUSED', path: 'url', message: checked.message };
  return checked.url === null
    ? { code: 'ROUTE_URL_REFUSED', path: 'url', message: 'is required' }
    : { url: checked.url };
}

/**
 * The forward address, or why it is refused: invalid, suppressed for the sub-account (as a send's
 * recipient), or on a domain this instance receives for (a loop).
 */
async function checkForwardTo(
  ctx: InboundRoutesDeps,
  subAccountId: number,
  raw: string,
): Promise<RouteIssue | { address: string }> {
  const address = raw.trim();
  const problem = emailAddressProblem(address);
  if (problem !== null) return { code: 'ROUTE_FORWARD_REFUSED', path: 'forwardTo', message: problem };
  if (await ctx.store.suppressions.isSuppressed(subAccountId, address, nowNs(ctx.clock)))
    return {
      code: 'ROUTE_FORWARD_REFUSED',
      path: 'forwardTo',
      message: `${address} is on the suppression list of this sub-account`,
    };
  // Mail forwarded to a domain this instance receives for comes back to a route: a loop.
  if (await ctx.store.inbound.receivingDomain(domainOfAddress(address)))
    return {
      code: 'ROUTE_FORWARD_LOOP',
      path: 'forwardTo',
      message: `${address} is on a domain this instance receives mail for: forwarding to it would loop`,
    };
  return { address };
}

/**
 * The route a request makes (`base` undefined) or leaves (an update of `base`). A target not given
 * keeps its value while the action stays, and is cleared when the action changes.
 */
async function resolveRoute(
  ctx: InboundRoutesDeps,
  subAccountId: number,
  input: RouteInput,
  base?: InboundRouteRecord,
): Promise<ResolvedRoute> {
  const issues: RouteIssue[] = [];
  const parsed = parsePattern(input.pattern ?? base?.pattern ?? '');
  if (!parsed.ok) issues.push({ code: 'ROUTE_PATTERN_INVALID', path: 'pattern', message: parsed.message });
  const actionText = input.action ?? base?.action ?? '';
  const action = ACTIONS.find((a) => a === actionText);
  if (!action)
    issues.push({ code: 'ROUTE_ACTION_UNKNOWN', path: 'action', message: `must be one of ${ACTIONS.join(', ')}` });
  const kept = base !== undefined && (action === undefined || action === base.action);
  const urlText = input.url !== undefined ? input.url : kept ? base.url : null;
  const forwardText = input.forwardTo !== undefined ? input.forwardTo : kept ? base.forwardTo : null;
  let url: string | null = null;
  let forwardTo: string | null = null;
  const target = (path: string, message: string) => issues.push({ code: 'ROUTE_TARGET_REQUIRED', path, message });
  if (action === 'webhook' && !urlText) target('url', 'is required for the action webhook');
  if (action !== 'webhook' && urlText) target('url', 'is only for the action webhook');
  if (action === 'forward' && !forwardText) target('forwardTo', 'is required for the action forward');
  if (action !== 'forward' && forwardText) target('forwardTo', 'is only for the action forward');
  if (action === 'webhook' && urlText) {
    const checked = checkRouteUrl(ctx, urlText);
    if ('url' in checked) url = checked.url;
    else issues.push(checked);
  }
  if (action === 'forward' && forwardText) {
    const checked = await checkForwardTo(ctx, subAccountId, forwardText);
    if ('address' in checked) forwardTo = checked.address;
    else issues.push(checked);
  }
  if (parsed.ok) {
    const receiving = await ctx.store.inbound.listDomains(subAccountId);
    if (!receiving.some((d) => d.name === parsed.value.domain)) issues.push(notReceiving(parsed.value.domain));
  }
  if (issues.length > 0 || !parsed.ok || !action) refuse(issues);
  return { ...parsed.value, action, url, forwardTo };
}

/** A stored route and, when this call made one, its signing secret in clear (shown once). */
export interface RouteWithSecret {
  route: InboundRouteRecord;
  secret?: string;
}

/** The sealed secret and its clear text when `route` needs a new one (it becomes a webhook route). */
function secretFor(ctx: InboundRoutesDeps, resolved: ResolvedRoute, base?: InboundRouteRecord) {
  if (resolved.action !== 'webhook') return { sealed: null };
  if (base?.action === 'webhook' && base.secretSealed !== null) return { sealed: base.secretSealed };
  const secret = generateWebhookSecret();
  return { sealed: ctx.secrets.encrypt(secret), secret };
}

/** The store's refusal as the API answers it. */
function refusal(reason: 'not-found' | 'duplicate-pattern' | 'domain-not-receiving', id: number, route: ResolvedRoute) {
  if (reason === 'not-found') return notFound(id);
  if (reason === 'duplicate-pattern') return duplicate(route.pattern);
  return refuse([notReceiving(route.domain)]);
}

/**
 * Creates a route; a `webhook` route gets a signing secret (`whsec_…`), answered here only.
 * Throws 422 (ROUTE_PATTERN_INVALID, ROUTE_ACTION_UNKNOWN, ROUTE_TARGET_REQUIRED, ROUTE_URL_REFUSED,
 * ROUTE_FORWARD_REFUSED, ROUTE_FORWARD_LOOP, ROUTE_DOMAIN_NOT_RECEIVING) or 403 ROUTE_PATTERN_EXISTS.
 */
export async function createRoute(
  ctx: InboundRoutesDeps,
  owner: { accountId: number; subAccountId: number },
  input: RouteInput,
): Promise<RouteWithSecret> {
  const resolved = await resolveRoute(ctx, owner.subAccountId, input);
  const { sealed, secret } = secretFor(ctx, resolved);
  const outcome = await ctx.store.inbound.createRoute({
    ...owner,
    ...resolved,
    secretSealed: sealed,
    created: nowNs(ctx.clock),
  });
  if (!outcome.ok) throw refusal(outcome.reason, 0, resolved);
  ctx.inboundRecipients.changed();
  return secret === undefined ? { route: outcome.value } : { route: outcome.value, secret };
}

/** A route of the sub-account; throws 406 ROUTE_NOT_FOUND. */
export async function getRoute(ctx: InboundRoutesDeps, subAccountId: number, id: number | null) {
  const route = id === null ? null : await ctx.store.inbound.getRoute(subAccountId, id);
  if (!route) throw notFound(id ?? 'given');
  return route;
}

/** A page of the sub-account's routes by id; `search` matches the pattern. */
export function listRoutes(ctx: InboundRoutesDeps, subAccountId: number, query: ListQuery) {
  return ctx.store.inbound.listRoutes(subAccountId, query);
}

/** How many routes {@link listRoutes} would answer without paging. */
export function countRoutes(ctx: InboundRoutesDeps, subAccountId: number, search?: string) {
  return ctx.store.inbound.countRoutes(subAccountId, search);
}

/**
 * Changes the fields given, the whole route checked again as on creation; a route that becomes a
 * `webhook` route gets a signing secret, answered here only. Throws as {@link createRoute}, and 406.
 */
export async function updateRoute(
  ctx: InboundRoutesDeps,
  subAccountId: number,
  id: number | null,
  input: RouteInput,
): Promise<RouteWithSecret> {
  const base = await getRoute(ctx, subAccountId, id);
  const resolved = await resolveRoute(ctx, subAccountId, input, base);
  const { sealed, secret } = secretFor(ctx, resolved, base);
  const patch: InboundRoutePatch = { ...resolved, secretSealed: sealed, updated: nowNs(ctx.clock) };
  const outcome = await ctx.store.inbound.updateRoute(subAccountId, base.id, patch);
  if (!outcome.ok) throw refusal(outcome.reason, base.id, resolved);
  ctx.inboundRecipients.changed();
  return secret === undefined ? { route: outcome.value } : { route: outcome.value, secret };
}

/** Deletes a route (its messages stay, without it); throws 406 ROUTE_NOT_FOUND. */
export async function deleteRoute(ctx: InboundRoutesDeps, subAccountId: number, id: number | null) {
  const route = id === null ? null : await ctx.store.inbound.deleteRoute(subAccountId, id);
  if (!route) throw notFound(id ?? 'given');
  ctx.inboundRecipients.changed();
  return route;
}
