import { failure, success } from '../../store/outcome.js';
import type { WebhookRecord, WebhookStore } from '../../store/index.js';
import { byId, contains, page, requireParent, toRecord, type MemoryContext } from './common.js';
import type { WebhookRow } from './rows.js';
import type { TableRows } from './tables.js';

const owned = (tables: TableRows, accountId: number, id: number): WebhookRow | undefined => {
  const row = tables.webhooks.get(id);
  return row?.accountId === accountId ? row : undefined;
};

/** Another webhook of the account with exactly that URL, if any. */
const urlTaken = (tables: TableRows, accountId: number, url: string, exceptId?: number) =>
  [...tables.webhooks.values()].some((w) => w.accountId === accountId && w.id !== exceptId && w.url === url);

const asWebhook = (row: WebhookRow): WebhookRecord => toRecord(row);

/** The switches a webhook has (a toggle name from outside the contract selects nothing). */
const TOGGLES: ReadonlySet<string> = new Set([
  'processed',
  'delivered',
  'dropped',
  'softBounced',
  'hardBounced',
  'opened',
  'clicked',
  'unsubscribed',
  'spam',
  'sent',
  'smtpDropped',
  'uniqueOpen',
  'uniqueClick',
  'incident',
]);

/** The state of a new webhook (migration 0020's columns). */
const NOT_ROTATED_FAILING_OR_REPLAYING = {
  previousSecretSealed: null,
  previousSecretUntil: null,
  failingSince: null,
  disabledReason: null,
  disabledAt: null,
  replayId: null,
  replayClaimedAt: null,
};

/** {@link WebhookStore} of the in-memory store. */
export function memoryWebhookStore(ctx: MemoryContext): WebhookStore {
  return {
    create: (input) =>
      ctx.write((tables) => {
        requireParent(tables.accounts.has(input.accountId), `account ${input.accountId}`);
        if (urlTaken(tables, input.accountId, input.url)) return failure('duplicate-url');
        const id = ctx.nextId('webhooks');
        const row: WebhookRow = {
          key: id,
          id,
          ...structuredClone(input),
          ...NOT_ROTATED_FAILING_OR_REPLAYING,
          updated: input.created,
        };
        tables.webhooks.set(id, row);
        return success(asWebhook(row));
      }),

    get: (accountId, id) =>
      ctx.read((tables) => {
        const row = owned(tables, accountId, id);
        return row ? asWebhook(row) : null;
      }),

    list: (accountId, query) =>
      ctx.read((tables) =>
        page(
          [...tables.webhooks.values()].filter((w) => w.accountId === accountId && contains(w.url, query.search)),
          query,
        ).map(asWebhook),
      ),

    update: (accountId, id, patch) =>
      ctx.write((tables) => {
        const row = owned(tables, accountId, id);
        if (!row) return failure('not-found');
        if (patch.url !== undefined && urlTaken(tables, accountId, patch.url, id)) return failure('duplicate-url');
        const { rotateTo, ...fields } = patch;
        const changes = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
        const rotation = rotateTo && {
          secretSealed: rotateTo.secretSealed,
          previousSecretSealed: row.secretSealed,
          previousSecretUntil: rotateTo.previousUntil,
        };
        const next: WebhookRow = { ...row, ...changes, ...rotation };
        tables.webhooks.set(id, next);
        return success(asWebhook(next));
      }),

    delete: (accountId, id) =>
      ctx.write((tables) => {
        const row = owned(tables, accountId, id);
        if (!row) return null;
        tables.webhooks.delete(id);
        for (const entry of [...tables.webhookDeliveries.values()])
          if (entry.webhookId === id) tables.webhookDeliveries.delete(entry.key);
        return asWebhook(row);
      }),

    listEnabledForEvent: (accountId, toggle) =>
      ctx.read((tables) => {
        if (!TOGGLES.has(toggle)) return [];
        return byId(
          [...tables.webhooks.values()].filter((w) => w.accountId === accountId && w.enabled && w[toggle]),
        ).map(asWebhook);
      }),

    recordDeliveryOutcome: (accountId, id, outcome) =>
      ctx.write((tables) => {
        const row = owned(tables, accountId, id);
        if (!row) return null;
        if (outcome.ok) {
          tables.webhooks.set(id, { ...row, failingSince: null });
          return null;
        }
        const failingSince = row.failingSince ?? outcome.at;
        const disable = row.enabled && failingSince <= outcome.at - outcome.disableAfter;
        const next: WebhookRow = disable
          ? { ...row, failingSince, enabled: false, disabledReason: outcome.reason, disabledAt: outcome.at }
          : { ...row, failingSince };
        tables.webhooks.set(id, next);
        return disable ? asWebhook(next) : null;
      }),

    claimReplay: (accountId, id, claim) =>
      ctx.write((tables) => {
        const row = owned(tables, accountId, id);
        if (!row) return false;
        const free =
          row.replayId === null || row.replayId === claim.replayId || (row.replayClaimedAt ?? 0n) < claim.staleBefore;
        if (free) tables.webhooks.set(id, { ...row, replayId: claim.replayId, replayClaimedAt: claim.at });
        return free;
      }),

    releaseReplay: (accountId, id, replayId) =>
      ctx.write((tables) => {
        const row = owned(tables, accountId, id);
        if (row?.replayId === replayId) tables.webhooks.set(id, { ...row, replayId: null, replayClaimedAt: null });
      }),

    recordDeliveries: (entries) =>
      ctx.write((tables) => {
        for (const entry of entries) {
          requireParent(tables.webhooks.has(entry.webhookId), `webhook ${entry.webhookId}`);
          const id = ctx.nextId('webhookDeliveries');
          tables.webhookDeliveries.set(id, { key: id, id, ...structuredClone(entry) });
        }
      }),

    listDeliveries: (accountId, webhookId, query) =>
      ctx.read((tables) =>
        [...tables.webhookDeliveries.values()]
          .filter((d) => d.accountId === accountId && d.webhookId === webhookId)
          .sort((a, b) => (a.created === b.created ? b.id - a.id : a.created < b.created ? 1 : -1))
          .slice(query.offset, query.offset + query.limit)
          .map((row) => toRecord(row)),
      ),

    deleteDeliveriesBefore: (before, limit) =>
      ctx.write((tables) => {
        const old = [...tables.webhookDeliveries.values()]
          .filter((d) => d.created < before)
          .sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : 0))
          .slice(0, limit);
        for (const row of old) tables.webhookDeliveries.delete(row.key);
        return old.length;
      }),
  };
}
