import { NotFoundError, ValidationError } from '../errors.js';
import { isResourceId } from '../model/ids.js';
import type { ListQuery } from '../model/paging.js';
import { nowNs, type Clock } from '../model/time.js';
import type {
  AlertEntityType,
  AlertParameter,
  AlertRecord,
  AlertWindowHours,
  MailplaneStore,
  NewAlert,
} from '../store/index.js';
import { checkPostTargetUrl } from '../webhook/target.js';
import type { AlertInput } from './alert-wire.js';
import {
  ALERT_ENTITY_TYPES,
  ALERT_WINDOW_HOURS,
  alertIncidentTopic,
  alertParameterOf,
  MAX_VOLUME_THRESHOLD,
  parseAlertProvider,
} from './codes.js';
import type { MailplaneConfig } from '../mailplane-config.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface AlertsDeps {
  readonly config: MailplaneConfig;
  readonly store: MailplaneStore;
  readonly clock: Clock;
}

/** A rule's settings as stored, without its account and times. */
type AlertRule = Omit<NewAlert, 'accountId' | 'created'>;

/** One problem of a rule's request, with the stable code it is answered with. */
interface RuleIssue {
  code: string;
  path: string;
  message: string;
}

/** Rule defaults where the legacy document sets none (docs/differences.md). */
const DEFAULT_PROCESSED_COUNT_THRESHOLD = 100;
const DEFAULT_WINDOW_HOURS: AlertWindowHours = 24;

const notFound = (id: number | string) =>
  new NotFoundError('ALERT_NOT_FOUND', `no alert with id ${id} in this account`);

/** Every problem at once, the first one's code on the answer: a 422 that writes nothing. */
function refuse(issues: readonly RuleIssue[]): never {
  const [first] = issues;
  throw new ValidationError(
    `the body is not valid (${first!.path}: ${first!.message})`,
    issues.map(({ path, message }) => ({ path, message })),
    first!.code,
  );
}

const entityMissing = (type: string): RuleIssue => ({
  code: 'ALERT_ENTITY_NOT_FOUND',
  path: 'entityValue',
  message: `names no ${type} of this account`,
});

/** The entity a request names, checked as far as it can be without the store (the store checks ownership). */
function resolveEntity(
  accountId: number,
  input: AlertInput,
  base: AlertRecord | undefined,
  issues: RuleIssue[],
): { entityType: AlertEntityType; entityId: number } {
  const given = input.entityType ?? base?.entityType;
  const type = ALERT_ENTITY_TYPES.find((t) => t === given);
  if (!type) {
    issues.push({
      code: 'ALERT_ENTITY_TYPE_UNKNOWN',
      path: 'entityType',
      message: given === undefined ? 'is required' : `must be one of ${ALERT_ENTITY_TYPES.join(', ')}`,
    });
    return { entityType: 'account', entityId: accountId };
  }
  // A new type needs its id with it, except the account, whose id is the caller's own.
  const typeChanged = base !== undefined && input.entityType !== undefined && input.entityType !== base.entityType;
  const entityId = input.entityValue ?? (typeChanged || base === undefined ? undefined : base.entityId);
  if (type === 'account') {
    if (entityId !== undefined && entityId !== accountId) issues.push(entityMissing(type));
    return { entityType: type, entityId: accountId };
  }
  if (entityId === undefined) {
    issues.push({ code: 'ALERT_ENTITY_NOT_FOUND', path: 'entityValue', message: `give the id of the ${type}` });
    return { entityType: type, entityId: 0 };
  }
  if (!isResourceId(entityId)) issues.push(entityMissing(type));
  return { entityType: type, entityId };
}

/** The Slack-compatible URL of a rule: `null` for none; a refusal is added to `issues`. */
function resolveSlackUrl(ctx: AlertsDeps, raw: string | null, issues: RuleIssue[]): string | null {
  const checked = checkPostTargetUrl(raw, { allowPrivateTargets: ctx.config.webhooks.allowPrivateTargets });
  if (checked.ok) return checked.url;
  issues.push({ code: 'ALERT_SLACK_URL_REFUSED', path: 'slackUrl', message: checked.message });
  return null;
}

/**
 * The rule a request makes (a creation: `base` undefined) or leaves (an update of `base`), every
 * field checked together; throws a 422 naming each problem, so nothing is stored half-checked.
 */
function resolveRule(ctx: AlertsDeps, accountId: number, input: AlertInput, base?: AlertRecord): AlertRule {
  const issues: RuleIssue[] = [];
  const entity = resolveEntity(accountId, input, base, issues);
  const parameterCode = input.parameter ?? base?.parameter;
  const parameter = parameterCode === undefined ? undefined : alertParameterOf(parameterCode);
  if (!parameter) {
    const message = parameterCode === undefined ? 'is required' : 'must be a code 0-7 (docs/reputation.md)';
    issues.push({ code: 'ALERT_PARAMETER_UNKNOWN', path: 'parameter', message });
  }
  const threshold = input.threshold ?? base?.threshold;
  if (threshold === undefined) {
    issues.push({ code: 'ALERT_THRESHOLD_OUT_OF_RANGE', path: 'threshold', message: 'is required' });
  } else if (parameter?.unit === 'percent' && !(threshold >= 0 && threshold <= 100)) {
    issues.push({ code: 'ALERT_THRESHOLD_OUT_OF_RANGE', path: 'threshold', message: 'a rate must be 0-100 (%)' });
  } else if (
    parameter?.unit === 'messages' &&
    !(Number.isInteger(threshold) && threshold >= 0 && threshold <= MAX_VOLUME_THRESHOLD)
  ) {
    const message = `a volume must be a whole number of messages from 0 to ${MAX_VOLUME_THRESHOLD}`;
    issues.push({ code: 'ALERT_THRESHOLD_OUT_OF_RANGE', path: 'threshold', message });
  }
  const provider = input.provider === undefined ? (base?.provider ?? null) : parseAlertProvider(input.provider);
  if (provider === undefined) {
    const message = 'must be all or a mailbox provider id 0-11 (docs/routing.md)';
    issues.push({ code: 'ALERT_PROVIDER_UNKNOWN', path: 'provider', message });
  }
  const windowHours = input.windowHours ?? base?.windowHours ?? DEFAULT_WINDOW_HOURS;
  const window = ALERT_WINDOW_HOURS.find((hours) => hours === windowHours);
  if (!window) {
    const message = `must be one of ${ALERT_WINDOW_HOURS.join(', ')} (hours)`;
    issues.push({ code: 'ALERT_WINDOW_NOT_OFFERED', path: 'windowHours', message });
  }
  const slackUrl =
    input.slackUrl === undefined ? (base?.slackUrl ?? null) : resolveSlackUrl(ctx, input.slackUrl, issues);
  const name = input.name ?? base?.name;
  if (name === undefined) issues.push({ code: 'VALIDATION_FAILED', path: 'name', message: 'is required' });
  if (issues.length > 0) refuse(issues);
  return {
    name: name!,
    active: input.active ?? base?.active ?? true,
    ...entity,
    parameter: parameter!.code as AlertParameter,
    threshold: threshold!,
    provider: provider!,
    processedCountThreshold:
      input.processedCountThreshold ?? base?.processedCountThreshold ?? DEFAULT_PROCESSED_COUNT_THRESHOLD,
    windowHours: window!,
    emails: input.emails ?? base?.emails ?? [],
    slackUrl,
  };
}

/** The rule's entity is not the account's (the store's check, at the write). */
const entityNotFound = (rule: Pick<AlertRule, 'entityType'>) => refuse([entityMissing(rule.entityType)]);

/** Creates a rule of the account; 422 for anything wrong with it, nothing stored then. */
export async function createAlert(ctx: AlertsDeps, accountId: number, input: AlertInput): Promise<AlertRecord> {
  const rule = resolveRule(ctx, accountId, input);
  const outcome = await ctx.store.alerts.create({ accountId, ...rule, created: nowNs(ctx.clock) });
  if (!outcome.ok) return entityNotFound(rule);
  return outcome.value;
}

/** The rule `id` of the account; 406 `ALERT_NOT_FOUND` for another account's or a missing one. */
export async function getAlert(ctx: AlertsDeps, accountId: number, id: number | null): Promise<AlertRecord> {
  const record = id === null ? null : await ctx.store.alerts.get(accountId, id);
  if (!record) throw notFound(id ?? 'given');
  return record;
}

/** A page of the account's rules, by id, matching `search` in their names. */
export function listAlerts(ctx: AlertsDeps, accountId: number, query: ListQuery): Promise<AlertRecord[]> {
  return ctx.store.alerts.list(accountId, query);
}

/** How many rules the account has (matching `search` in their names). */
export function countAlerts(ctx: AlertsDeps, accountId: number, search?: string): Promise<number> {
  return ctx.store.alerts.count(accountId, search);
}

/** Changes the fields given; the rule they leave is checked whole, and stored only if it all holds. */
export async function updateAlert(
  ctx: AlertsDeps,
  accountId: number,
  id: number | null,
  input: AlertInput,
): Promise<AlertRecord> {
  const base = await getAlert(ctx, accountId, id);
  const rule = resolveRule(ctx, accountId, input, base);
  const outcome = await ctx.store.alerts.update(accountId, base.id, { ...rule, updated: nowNs(ctx.clock) });
  if (outcome.ok) return outcome.value;
  if (outcome.reason === 'not-found') throw notFound(base.id);
  return entityNotFound(rule);
}

/**
 * Deletes a rule. Its open incident is resolved (`alert-deleted`) in the same transaction: with the
 * rule gone nothing would ever resolve it.
 */
export async function deleteAlert(ctx: AlertsDeps, accountId: number, id: number | null): Promise<AlertRecord> {
  if (id === null) throw notFound('given');
  const at = nowNs(ctx.clock);
  const deleted = await ctx.store.transaction(async (store) => {
    const open = await store.incidents.findOpen(accountId, alertIncidentTopic(id));
    if (open)
      await store.incidents.resolve(accountId, open.id, { at, by: 'alert-deleted', detail: 'its alert was deleted' });
    return store.alerts.delete(accountId, id);
  });
  if (!deleted) throw notFound(id);
  return deleted;
}
