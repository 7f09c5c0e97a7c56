/**
 * The storage contract: one interface per aggregate, gathered in {@link MailplaneStore}.
 * `mailplane/testing` exports `runStoreConformance`, which every implementation must pass.
 */
import type { AccountStore } from './account-store.js';
import type { SubAccountStore } from './sub-account-store.js';
import type { DomainStore } from './domain-store.js';
import type { SuppressionStore } from './suppression-store.js';
import type { IpPoolStore, IpStore, TpspStore } from './ip-pool-store.js';
import type { WebhookStore } from './webhook-store.js';
import type { JobStore } from './job-store.js';
import type { StatsStore } from './stats-store.js';
import type { MessageStore } from './message-store.js';
import type { WarmupStore } from './warmup-store.js';
import type { RateLimitStore } from './rate-limit-store.js';
import type { ShapingStore } from './shaping-store.js';
import type { SandboxStore } from './sandbox-store.js';
import type { SettingStore, StoreReadiness } from './instance-store.js';
import type { TemplateStore } from './template-store.js';
import type { IdempotencyStore } from './idempotency-store.js';
import type { DashboardSessionStore } from './dashboard-session-store.js';
import type { AlertStore } from './alert-store.js';
import type { IncidentStore } from './incident-store.js';
import type { ReputationStore } from './reputation-store.js';
import type { InboundStore } from './inbound-store.js';

export type * from './account-store.js';
export type * from './sub-account-store.js';
export type * from './domain-store.js';
export type * from './suppression-store.js';
export type * from './ip-pool-store.js';
export type * from './webhook-store.js';
export type * from './job-store.js';
export { fairOrder, fairOrderAfterRetry, fairOrders, fairFlow, jobPriority, jobStreamOf } from './job-order.js';
export type * from './stats-store.js';
export { ALL_MAIL } from './stats-store.js';
export type * from './message-store.js';
export type * from './warmup-store.js';
export type * from './rate-limit-store.js';
export type * from './shaping-store.js';
export type * from './sandbox-store.js';
export type * from './instance-store.js';
export type * from './template-store.js';
export type * from './idempotency-store.js';
export type * from './dashboard-session-store.js';
export type * from './alert-store.js';
export type * from './incident-store.js';
export type * from './reputation-store.js';
export type * from './inbound-store.js';
export type * from './inbound-post-log.js';
export { REPUTATION_COUNTERS, hourOfMs } from './reputation-store.js';
export { AlertParameter } from './alert-store.js';
export { EventType } from './message-store.js';
export type { Outcome } from './outcome.js';
export { SubAccountType } from './sub-account-store.js';
export { SuppressionType, suppressionKey, suppressionKeysOf } from './suppression-store.js';

/**
 * A complete storage backend.
 *
 * `transaction` MUST run `work` against a store whose every call is part of one database
 * transaction, committed when `work` resolves and rolled back when it rejects. Calls made on the
 * outer store while a transaction runs MUST NOT see its uncommitted writes.
 */
export interface MailplaneStore {
  readonly accounts: AccountStore;
  readonly subAccounts: SubAccountStore;
  readonly domains: DomainStore;
  readonly suppressions: SuppressionStore;
  readonly ips: IpStore;
  readonly tpsps: TpspStore;
  readonly ipPools: IpPoolStore;
  readonly webhooks: WebhookStore;
  readonly jobs: JobStore;
  readonly stats: StatsStore;
  readonly messages: MessageStore;
  readonly warmup: WarmupStore;
  /** API rate-limit counters (`createMailplane({ rateLimits })`). */
  readonly rateLimits: RateLimitStore;
  /** Traffic shaping: the state that holds each source × destination to its limits, and accounts' rules (docs/shaping.md). */
  readonly shaping: ShapingStore;
  /** Messages the sandbox mail catcher captured (`startSandbox`). */
  readonly sandbox: SandboxStore;
  /**
   * Instance-wide settings (the secret's check value that keeps a node with another
   * `MAILPLANE_SECRET` from starting). Optional: without it that check is skipped.
   */
  readonly settings?: SettingStore;
  /** Stored templates of sub-accounts and their versions (`/subaccount/template`, docs/templates.md). */
  readonly templates: TemplateStore;
  /** Idempotency keys of sends (`Idempotency-Key`, docs/sending.md). */
  readonly idempotency: IdempotencyStore;
  /**
   * Sessions of the dashboard (`mailplane/dashboard`). Optional: without it the dashboard keeps
   * its sessions in the memory of the process that opened them (one node only).
   */
  readonly dashboardSessions?: DashboardSessionStore;
  /** Alert rules of accounts (`/account/alert`, docs/reputation.md). */
  readonly alerts: AlertStore;
  /** Incidents the rules and the automatic protections open (`/account/incident`, docs/reputation.md). */
  readonly incidents: IncidentStore;
  /**
   * Hourly counters per sub-account × sending domain × mailbox provider × IP: what the reputation
   * guard measures (docs/reputation.md, "Counters").
   */
  readonly reputation: ReputationStore;
  /** Receiving mail: the domains that receive, the routes of sub-accounts, the messages received (docs/inbound.md). */
  readonly inbound: InboundStore;
  transaction<T>(work: (store: MailplaneStore) => Promise<T>): Promise<T>;
  /**
   * Whether the store can serve now: the database answers and its schema is current (no migration
   * pending). Rejects when the database cannot be reached. Optional: `GET /readyz` counts a store
   * without it as ready once a trivial read succeeds.
   */
  ready?(): Promise<StoreReadiness>;
  /** Releases connections; the store is unusable afterwards. */
  close(): Promise<void>;
  /**
   * Calls `listener` after a commit that enqueued jobs, so a job runner starts them at once
   * instead of at its next poll; answers the function that unsubscribes. Optional: without it
   * runners find jobs by polling. A store shared by several processes (the Kysely store on
   * PostgreSQL: LISTEN/NOTIFY) calls it for every process's enqueues; a store of one process,
   * for its own. It MAY call `listener` when nothing new is due (a spurious wake-up costs one
   * claim) and MAY miss enqueues while its notification channel is down: runners keep polling.
   */
  onJobsDue?(listener: () => void): () => void;
  /**
   * A value that changes whenever account configuration that nodes cache changes, in whichever
   * process: webhooks, IP pools and their members, IPs, TPSPs, sub-accounts, domains. The change
   * and the new value commit together, so a node that reads the value after the change committed
   * sees it differ. One cheap read (a primary key). Optional: a store that serves one process
   * (SQLite, the memory store) needs none, as every write goes through that process's caches.
   */
  cacheVersion?(): Promise<string>;
}
