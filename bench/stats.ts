/**
 * Statistics reads: the 366-day aggregate of a sub-account with 10 events and of one with
 * 1,000,000 and 10,000,000 events, on SQLite. Counters are written through the store's increment (10,000 upserts
 * carrying the 10 million events spread over the year), exactly the rows that many events produce.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMailplane, silentLogger, type StatsIncrement } from '../src/index.js';
import { openKyselyStore } from '../adapters/storage/kysely/index.js';
import { eachDay } from '../src/model/dates.js';
import { newSubAccount } from '../src/testing/conformance/fixtures.js';
import { medianMs as timeMedian } from './lib/median.js';

/** Median milliseconds of the 366-day aggregate for a sub-account with `events` events. */
export interface StatsBenchRow {
  events: number;
  /** Counter rows the query reads: one per day that had traffic. */
  daysWithData: number;
  medianMs: number;
  /** medianMs relative to the 10-event sub-account. */
  ratio: number;
}

const SIZES = [
  { events: 10, writes: 10 },
  { events: 1_000_000, writes: 1_000 },
  { events: 10_000_000, writes: 10_000 },
];

/** Runs the statistics benchmark. */
export async function benchStats(): Promise<StatsBenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mailplane-bench-stats-'));
  const store = await openKyselyStore({ url: `sqlite:${join(dir, 'stats.db')}` });
  try {
    const mailplane = createMailplane({
      store,
      secret: 'bench-secret-bench-secret-bench-secret!',
      logger: silentLogger,
    });
    const { account } = await mailplane.createAccount({ name: 'bench' });
    const days = eachDay('2025-01-01', '2025-12-31');
    const measured: Array<{ events: number; daysWithData: number; medianMs: number }> = [];
    for (const size of SIZES) {
      const sub = await newSubAccount(store, account.id, `events-${size.events}`);
      const writes: StatsIncrement[] = Array.from({ length: size.writes }, (_, i) => ({
        accountId: account.id,
        subAccountId: sub.id,
        day: days[i % days.length]!,
        group: '',
        counters: { processed: size.events / size.writes, delivered: size.events / size.writes },
      }));
      for (let i = 0; i < writes.length; i += 500) await store.stats.increment(writes.slice(i, i + 500));
      const scope = { accountId: account.id, subAccountId: sub.id };
      const check = await store.stats.total(scope, '2025-01-01', '2025-12-31');
      if (check.processed !== size.events) throw new Error(`expected ${size.events} processed, got ${check.processed}`);
      await timeMedian(20, () => store.stats.total(scope, '2025-01-01', '2025-12-31'));
      const medianMs = await timeMedian(300, () => store.stats.total(scope, '2025-01-01', '2025-12-31'));
      measured.push({
        events: size.events,
        daysWithData: Math.min(size.writes, days.length),
        medianMs: Number(medianMs.toFixed(3)),
      });
    }
    const base = measured[0]!.medianMs;
    return measured.map((row) => ({ ...row, ratio: Number((row.medianMs / base).toFixed(2)) }));
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
