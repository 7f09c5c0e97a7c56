import type { DashboardSessionStore, MailplaneStore } from '../../store/index.js';
import { mapDashboardSessionStore } from '../../store/dashboard-session-store.js';
import { memoryAccountStore } from './accounts.js';
import type { MemoryContext } from './common.js';
import { memoryDomainStore } from './domains.js';
import { memoryIpPoolStore } from './ip-pools.js';
import { memoryIpStore, memoryTpspStore } from './ips.js';
import { memoryJobStore } from './jobs.js';
import { memoryMessageStore } from './messages.js';
import { memoryRateLimitStore } from './rate-limits.js';
import { memoryShapingStore } from './shaping.js';
import { memorySandboxStore } from './sandbox.js';
import { memoryStatsStore } from './stats.js';
import { memorySubAccountStore } from './sub-accounts.js';
import { memorySuppressionStore } from './suppressions.js';
import { createTables, overlay, type TableRows } from './tables.js';
import { memoryWarmupStore } from './warmup.js';
import { memoryWebhookStore } from './webhooks.js';
import { memoryTemplateStore } from './templates.js';
import { memoryIdempotencyStore } from './idempotency.js';
import { memoryAlertStore, memoryIncidentStore } from './alerts.js';
import { memoryReputationStore } from './reputation.js';
import { memoryInboundStore } from './inbound.js';

/** Runs one piece of work at a time, in arrival order. */
function createMutex() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const result = tail.then(work);
    tail = result.catch(() => undefined);
    return result;
  };
}

/** What one in-memory database holds: its committed tables, id sequences and the writers' lock. */
interface MemoryDatabase {
  tables: TableRows;
  sequences: Map<string, number>;
  exclusive: ReturnType<typeof createMutex>;
  closed: boolean;
  /** Instance-wide settings; not rolled back with a transaction (a claim is a single write). */
  settings: Map<string, string>;
  /** `onJobsDue` listeners, called after a commit that enqueued jobs. */
  jobsDue: Set<() => void>;
  /** Dashboard sessions by id hash; like settings, single writes outside transactions. */
  dashboardSessions: DashboardSessionStore;
}

function emitJobsDue(db: MemoryDatabase): void {
  for (const listener of db.jobsDue) {
    try {
      listener();
    } catch {
      // A listener's fault is its own: the others still wake.
    }
  }
}

function nextId(db: MemoryDatabase) {
  return (sequence: string) => {
    const id = (db.sequences.get(sequence) ?? 0) + 1;
    db.sequences.set(sequence, id);
    return id;
  };
}

function assertOpen(db: MemoryDatabase): void {
  if (db.closed) throw new Error('memory store: the store is closed');
}

/**
 * Outside a transaction: reads see committed rows; each write waits for the writers' lock (so it
 * never interleaves with a transaction) and commits on its own.
 */
function committedAccess(db: MemoryDatabase): MemoryContext {
  return {
    read: async (read) => {
      assertOpen(db);
      return read(db.tables);
    },
    write: (write) =>
      db.exclusive(async () => {
        assertOpen(db);
        const layer = overlay(db.tables);
        const result = write(layer.tables);
        layer.commit();
        return result;
      }),
    nextId: nextId(db),
  };
}

/**
 * Inside a transaction: reads and writes see the transaction's own rows; each write is a savepoint
 * (a write that throws leaves nothing in the transaction, as a failed statement's rows).
 */
function transactionAccess(db: MemoryDatabase, tables: TableRows, state: { open: boolean }): MemoryContext {
  const check = () => {
    assertOpen(db);
    if (!state.open) throw new Error('memory store: the transaction has already ended');
  };
  return {
    read: async (read) => {
      check();
      return read(tables);
    },
    write: async (write) => {
      check();
      const savepoint = overlay(tables);
      const result = write(savepoint.tables);
      savepoint.commit();
      return result;
    },
    nextId: nextId(db),
  };
}

/**
 * `jobs` that raise the wake-up signal for what they enqueue: at once outside a transaction, at
 * commit inside one (`enqueued` is the transaction's flag).
 */
function signallingJobs(
  db: MemoryDatabase,
  access: MemoryContext,
  enqueued: { value: boolean } | null,
): MailplaneStore['jobs'] {
  const jobs = memoryJobStore(access);
  return {
    ...jobs,
    async enqueue(newJobs) {
      const results = await jobs.enqueue(newJobs);
      if (results.some((r) => r.created)) {
        if (enqueued) enqueued.value = true;
        else emitJobsDue(db);
      }
      return results;
    },
  };
}

function buildStore(
  db: MemoryDatabase,
  access: MemoryContext,
  inTransaction: boolean,
  enqueued: { value: boolean } | null = null,
): MailplaneStore {
  const store: MailplaneStore = {
    accounts: memoryAccountStore(access),
    subAccounts: memorySubAccountStore(access),
    domains: memoryDomainStore(access),
    suppressions: memorySuppressionStore(access),
    ips: memoryIpStore(access),
    tpsps: memoryTpspStore(access),
    ipPools: memoryIpPoolStore(access),
    webhooks: memoryWebhookStore(access),
    jobs: signallingJobs(db, access, enqueued),
    stats: memoryStatsStore(access),
    messages: memoryMessageStore(access),
    warmup: memoryWarmupStore(access),
    rateLimits: memoryRateLimitStore(access),
    shaping: memoryShapingStore(access),
    sandbox: memorySandboxStore(access),
    templates: memoryTemplateStore(access),
    idempotency: memoryIdempotencyStore(access),
    alerts: memoryAlertStore(access),
    incidents: memoryIncidentStore(access),
    reputation: memoryReputationStore(access),
    inbound: memoryInboundStore(access),
    settings: {
      async claim(name, value) {
        assertOpen(db);
        if (!db.settings.has(name)) db.settings.set(name, value);
        return db.settings.get(name)!;
      },
    },
    dashboardSessions: db.dashboardSessions,
    async ready() {
      assertOpen(db);
      return { ready: true };
    },
    transaction(work) {
      // A transaction within a transaction is part of it, as in the Kysely store.
      if (inTransaction) return work(store);
      return db.exclusive(async () => {
        assertOpen(db);
        const layer = overlay(db.tables);
        const state = { open: true };
        const jobsEnqueued = { value: false };
        try {
          const result = await work(buildStore(db, transactionAccess(db, layer.tables, state), true, jobsEnqueued));
          assertOpen(db);
          layer.commit();
          if (jobsEnqueued.value) emitJobsDue(db);
          return result;
        } finally {
          state.open = false;
        }
      });
    },
    onJobsDue(listener) {
      db.jobsDue.add(listener);
      return () => {
        db.jobsDue.delete(listener);
      };
    },
    async close() {
      db.closed = true;
      db.jobsDue.clear();
    },
  };
  return store;
}

/**
 * A complete {@link MailplaneStore} held in memory: every aggregate of the storage contract, and
 * transactions across all of them. It passes the whole `runStoreConformance` suite, so tests can
 * run mailplane without a database (nothing survives `close()` or the process).
 *
 * Transactions are serialised: one runs at a time, and writes made outside a transaction wait for
 * it. Reads outside a transaction never wait and see only committed rows. A transaction's work
 * must therefore use the store it is given, never the outer store, for its writes: a write on the
 * outer store would wait for the transaction that waits for it (a single SQLite connection has the
 * same rule).
 *
 * @example
 * import { createMailplane } from 'mailplane';
 * import { createMemoryStore, captureTransport } from 'mailplane/testing';
 *
 * const transport = captureTransport();
 * const mailplane = createMailplane({ store: createMemoryStore(), secret: 'a test secret of at least 32 characters', transport });
 */
export function createMemoryStore(): MailplaneStore {
  const db: MemoryDatabase = {
    tables: createTables(),
    sequences: new Map(),
    exclusive: createMutex(),
    closed: false,
    settings: new Map(),
    jobsDue: new Set(),
    dashboardSessions: mapDashboardSessionStore(),
  };
  return buildStore(db, committedAccess(db), false);
}
