/**
 * Activity queries at scale (issue 16): one account with `BENCH_ACTIVITY_MESSAGES` messages
 * (default 10,000,000) and five events each, against the same account shape at 10,000 messages,
 * both on PostgreSQL in the same run. Every query the activity API runs (messages and events,
 * each filter alone) is timed through the store's own methods, as a first page and as a later
 * cursor page half-way back in time; each row reports the large time as a ratio of the small.
 *
 * `MAILPLANE_BENCH_PG_URL` (or `MAILPLANE_TEST_PG_URL`) names the server; the benchmark creates
 * its two databases there and drops them at the end unless `BENCH_ACTIVITY_KEEP=1`, in which case
 * a later run reuses a filled database of the same size (and migrates it, so a new index is
 * built on the existing rows).
 */
import pg from 'pg';
import { openKyselyStore } from '../adapters/storage/kysely/index.js';
import type { ActivityCursor, ActivityFilter, MailplaneStore } from '../src/store/index.js';
import { newAccount, newSubAccount } from '../src/testing/conformance/fixtures.js';
import { fillActivity, senderOf, SPREAD } from './lib/activity-fill.js';
import { medianMs } from './lib/median.js';

const DAY_NS = 86_400_000_000_000n;
const END = 1_767_225_600_000_000_000n; // 2026-01-01T00:00:00Z
const PAGE = 100;
const LAST_ID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** One query of the benchmark at both sizes. */
export interface ActivityBenchRow {
  list: 'message' | 'event';
  filter: string;
  page: 'first' | 'later';
  smallMs: number;
  largeMs: number;
  /** largeMs / smallMs. */
  ratio: number;
  /** Rows the large page returned. */
  rows: number;
}

interface Filled {
  store: MailplaneStore;
  accountId: number;
  subAccountIds: number[];
  /** A recipient with mail, lower-cased. */
  recipient: string;
  drop: () => Promise<void>;
}

const serverUrl = () => process.env.MAILPLANE_BENCH_PG_URL ?? process.env.MAILPLANE_TEST_PG_URL;

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl() });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A migrated store on the database of `messages` messages, filled unless a kept fill is there. */
async function filledDatabase(messages: number, log: (line: string) => void): Promise<Filled> {
  const name = `mailplane_bench_activity_${messages}`;
  const keep = process.env.BENCH_ACTIVITY_KEEP === '1';
  const exists = await admin(
    async (c) => (await c.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1,
  );
  const url = new URL(serverUrl()!);
  url.pathname = `/${name}`;
  const client = async () => {
    const c = new pg.Client({ connectionString: url.toString() });
    await c.connect();
    return c;
  };
  let reuse: { account_id: number; sub_ids: string } | undefined;
  if (exists && keep) {
    const c = await client();
    reuse = (await c.query('select account_id, sub_ids from bench_activity_fill').catch(() => ({ rows: [] }))).rows[0];
    await c.end();
  }
  if (!reuse) {
    await admin((c) => c.query(`drop database if exists ${name} with (force)`));
    await admin((c) => c.query(`create database ${name}`));
  }
  const store = await openKyselyStore({ url: url.toString(), maxConnections: 2 });
  const drop = async () => {
    await store.close();
    if (!keep) await admin((c) => c.query(`drop database if exists ${name} with (force)`));
  };
  let accountId: number;
  let subAccountIds: number[];
  if (reuse) {
    log(`${name}: reusing the kept fill`);
    accountId = reuse.account_id;
    subAccountIds = reuse.sub_ids.split(',').map(Number);
  } else {
    const started = performance.now();
    accountId = (await newAccount(store, 'bench')).id;
    subAccountIds = [];
    for (let i = 0; i < SPREAD.subAccounts; i++)
      subAccountIds.push((await newSubAccount(store, accountId, `sub-${i}`)).id);
    const c = await client();
    try {
      log(`${name}: filling ${messages.toLocaleString()} messages`);
      await fillActivity(c, {
        accountId,
        subAccountIds,
        messages,
        end: END,
        log: (line) => log(`${line} (${((performance.now() - started) / 1000).toFixed(0)} s)`),
      });
      await c.query('create table bench_activity_fill (account_id integer, sub_ids text)');
      await c.query('insert into bench_activity_fill values ($1, $2)', [accountId, subAccountIds.join(',')]);
    } finally {
      await c.end();
    }
  }
  const c = await client();
  const middle = await c.query<{ to_key: string }>(
    `select to_key from messages where id = md5('m' || $1::bigint)::uuid::text`,
    [Math.floor(messages / 2)],
  );
  await c.end();
  return { store, accountId, subAccountIds, recipient: middle.rows[0]!.to_key, drop };
}

/** The filters of the benchmark, each alone, for one filled database. */
function cases(db: Filled): Array<{ filter: string; where: Omit<ActivityFilter, 'accountId'>; events?: boolean }> {
  const dayFrom = END - 10n * DAY_NS;
  return [
    { filter: 'none', where: {} },
    { filter: 'recipient', where: { recipient: db.recipient } },
    { filter: 'sender', where: { sender: senderOf(7) } },
    { filter: 'status hard_bounced', where: { status: 'hard_bounced' } },
    { filter: 'group', where: { group: 'group-3' } },
    { filter: 'pool', where: { ipPoolId: 2 } },
    { filter: 'sub-account', where: { subAccountId: db.subAccountIds[4]! } },
    { filter: 'time range (1 day)', where: { from: dayFrom, to: dayFrom + DAY_NS } },
    { filter: 'type clicked', where: { eventTypes: [6] }, events: true },
    { filter: 'type unsubscribed', where: { eventTypes: [7] }, events: true },
  ];
}

/** Median milliseconds and row count of every case on one database. */
async function measure(db: Filled): Promise<Map<string, { ms: number; rows: number }>> {
  const results = new Map<string, { ms: number; rows: number }>();
  for (const list of ['message', 'event'] as const) {
    for (const c of cases(db)) {
      if (c.events && list === 'message') continue;
      const filter: ActivityFilter = { accountId: db.accountId, ...c.where };
      // The later page starts half-way back (inside the window for the time range).
      const at = c.where.from !== undefined ? c.where.from + DAY_NS / 2n : END - BigInt(SPREAD.days / 2) * DAY_NS;
      for (const page of ['first', 'later'] as const) {
        const after: ActivityCursor | undefined = page === 'later' ? { at, id: LAST_ID } : undefined;
        const request = { limit: PAGE, ...(after && { after }) };
        const run = () =>
          list === 'message'
            ? db.store.messages.listActivity(filter, request)
            : db.store.messages.listActivityEvents(filter, request);
        const rows = (await run()).length;
        await medianMs(3, run);
        results.set(`${list}|${c.filter}|${page}`, { ms: await medianMs(15, run), rows });
      }
    }
  }
  return results;
}

/** Runs the activity benchmark (needs a PostgreSQL server). */
export async function benchActivity(log: (line: string) => void = console.log): Promise<ActivityBenchRow[]> {
  if (!serverUrl()) throw new Error('the activity benchmark needs MAILPLANE_BENCH_PG_URL or MAILPLANE_TEST_PG_URL');
  const largeSize = Number(process.env.BENCH_ACTIVITY_MESSAGES ?? 10_000_000);
  const small = await filledDatabase(10_000, log);
  const large = await filledDatabase(largeSize, log);
  try {
    log('measuring 10,000 messages');
    const smallTimes = await measure(small);
    log(`measuring ${largeSize.toLocaleString()} messages`);
    const largeTimes = await measure(large);
    return [...largeTimes].map(([key, l]) => {
      const [list, filter, page] = key.split('|') as [ActivityBenchRow['list'], string, ActivityBenchRow['page']];
      const s = smallTimes.get(key)!;
      return {
        list,
        filter,
        page,
        smallMs: round(s.ms),
        largeMs: round(l.ms),
        ratio: Number((l.ms / s.ms).toFixed(2)),
        rows: l.rows,
      };
    });
  } finally {
    await small.drop();
    await large.drop();
  }
}

const round = (ms: number) => Number(ms.toFixed(2));
