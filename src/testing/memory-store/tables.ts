import type * as R from './rows.js';

/**
 * The tables of the in-memory store and the overlays that make its transactions: a write works on
 * an overlay of the committed tables (its changes are visible to itself only) and commits by
 * applying the overlay in one synchronous step, or rolls back by dropping it.
 */

const DELETED: unique symbol = Symbol('deleted');

/** One table: rows by primary key. Rows are immutable values; an update stores a new row. */
export interface Rows<K, V> {
  get(key: K): V | undefined;
  has(key: K): boolean;
  set(key: K, row: V): void;
  delete(key: K): boolean;
  /** Every row, in no particular order (readers sort). */
  values(): IterableIterator<V>;
}

/** The committed rows of a table. */
class BaseRows<K, V> implements Rows<K, V> {
  private readonly rows = new Map<K, V>();
  get(key: K) {
    return this.rows.get(key);
  }
  has(key: K) {
    return this.rows.has(key);
  }
  set(key: K, row: V) {
    this.rows.set(key, row);
  }
  delete(key: K) {
    return this.rows.delete(key);
  }
  values() {
    return this.rows.values();
  }
}

/** Changes on top of a parent table, invisible to the parent until {@link OverlayRows.apply}. */
class OverlayRows<K, V> implements Rows<K, V> {
  private readonly changes = new Map<K, V | typeof DELETED>();
  constructor(private readonly parent: Rows<K, V>) {}
  get(key: K) {
    const changed = this.changes.get(key);
    if (changed === DELETED) return undefined;
    return changed ?? this.parent.get(key);
  }
  has(key: K) {
    return this.get(key) !== undefined;
  }
  set(key: K, row: V) {
    this.changes.set(key, row);
  }
  delete(key: K) {
    const existed = this.has(key);
    if (existed) this.changes.set(key, DELETED);
    return existed;
  }
  *values() {
    for (const row of this.parent.values()) {
      // The parent's row under a changed key is either replaced (yielded below) or deleted.
      const key = keyOfRow(row);
      if (!this.changes.has(key as K)) yield row;
    }
    for (const row of this.changes.values()) if (row !== DELETED) yield row;
  }
  /** Writes the changes into the parent. */
  apply() {
    for (const [key, row] of this.changes) {
      if (row === DELETED) this.parent.delete(key);
      else this.parent.set(key, row);
    }
  }
}

const keyOfRow = (row: unknown) => (row as R.Keyed<unknown>).key;

/** The schema: one table per stored relation, each row carrying its primary key as `key`. */
export interface TableRows {
  accounts: Rows<number, R.AccountRow>;
  subAccounts: Rows<number, R.SubAccountRow>;
  smtpAuths: Rows<number, R.SmtpAuthRow>;
  domains: Rows<number, R.DomainRow>;
  /** Keyed by sub-account and lower-cased address: the lookups of the send path are direct. */
  suppressions: Rows<string, R.SuppressionRow>;
  ips: Rows<number, R.IpRow>;
  tpsps: Rows<number, R.TpspRow>;
  ipPools: Rows<number, R.IpPoolRow>;
  /** Keyed by IP id: an IP belongs to at most one pool. */
  poolIps: Rows<number, R.PoolIpRow>;
  poolTpsps: Rows<string, R.PoolTpspRow>;
  webhooks: Rows<number, R.WebhookRow>;
  jobs: Rows<number, R.JobRow>;
  stats: Rows<string, R.StatsRow>;
  batches: Rows<string, R.BatchRow>;
  messages: Rows<string, R.MessageRow>;
  events: Rows<string, R.EventRow>;
  warmupProgress: Rows<number, R.WarmupProgressRow>;
  dailySends: Rows<string, R.DailySendsRow>;
  warmupTraffic: Rows<string, R.WarmupTrafficRow>;
  rateLimits: Rows<string, R.RateLimitRow>;
  sandboxMessages: Rows<number, R.SandboxMessageRow>;
  templates: Rows<number, R.TemplateRow>;
  /** Keyed by `<templateId>:<version>`. */
  templateVersions: Rows<string, R.TemplateVersionRow>;
  idempotencyKeys: Rows<string, R.IdempotencyKeyRow>;
  webhookDeliveries: Rows<number, R.WebhookDeliveryRow>;
  /** Traffic shaping (shaping.ts): state by key, in-flight counts by `<key>\u0000<holder>`, rules by account. */
  shapingStates: Rows<string, R.ShapingStateRow>;
  shapingFlights: Rows<string, R.ShapingFlightRow>;
  shapingRules: Rows<number, R.ShapingRulesRow>;
  alerts: Rows<number, R.AlertRow>;
  incidents: Rows<number, R.IncidentRow>;
  /** Hourly reputation buckets, keyed by account, sub-account, hour, domain, provider and IP. */
  reputation: Rows<string, R.ReputationRow>;
  /** The automatic protection's settings, keyed by `<accountId>:<subAccountId>`. */
  protectionSettings: Rows<string, R.ProtectionSettingsRow>;
  /** Receiving (inbound.ts): enabled domains by domain id, routes by id, messages by UUID. */
  inboundDomains: Rows<number, R.InboundDomainRow>;
  inboundRoutes: Rows<number, R.InboundRouteRow>;
  inboundMessages: Rows<string, R.InboundMessageRow>;
  /** The post log of received messages (inbound-post-log.ts), by id. */
  inboundPostAttempts: Rows<number, R.InboundPostAttemptRow>;
}

/** Table names, in one list so creating and overlaying them cannot forget one. */
const TABLES = [
  'accounts',
  'subAccounts',
  'smtpAuths',
  'domains',
  'suppressions',
  'ips',
  'tpsps',
  'ipPools',
  'poolIps',
  'poolTpsps',
  'webhooks',
  'jobs',
  'stats',
  'batches',
  'messages',
  'events',
  'warmupProgress',
  'dailySends',
  'warmupTraffic',
  'rateLimits',
  'sandboxMessages',
  'templates',
  'templateVersions',
  'idempotencyKeys',
  'webhookDeliveries',
  'shapingStates',
  'shapingFlights',
  'shapingRules',
  'alerts',
  'incidents',
  'reputation',
  'protectionSettings',
  'inboundDomains',
  'inboundRoutes',
  'inboundMessages',
  'inboundPostAttempts',
] as const satisfies ReadonlyArray<keyof TableRows>;

/** Empty committed tables. */
export function createTables(): TableRows {
  return Object.fromEntries(TABLES.map((name) => [name, new BaseRows()])) as unknown as TableRows;
}

/** A view of `tables` whose writes stay in it until `commit()`: a transaction, or a savepoint inside one. */
export function overlay(tables: TableRows): { tables: TableRows; commit: () => void } {
  const layers = Object.fromEntries(
    TABLES.map((name) => [name, new OverlayRows(tables[name] as Rows<unknown, unknown>)]),
  );
  return {
    tables: layers as unknown as TableRows,
    commit: () => {
      for (const name of TABLES) (layers[name] as OverlayRows<unknown, unknown>).apply();
    },
  };
}
