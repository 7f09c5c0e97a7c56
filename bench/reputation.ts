/**
 * The reputation guard's evaluation (docs/reputation.md, "Evaluation"): the wall time of one run on
 * SQLite for a small account and for a large one (1,000 sub-accounts with a day of hourly buckets on
 * 3 providers × 2 IPs each, and 100 rules), and for the large one with 100 times the mail in the same
 * buckets. A run sums counters, so its time follows the rules and buckets read, never the mail counted:
 * the last row's ratio to the one before is about 1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openKyselyStore } from '../adapters/storage/kysely/index.js';
import { ReputationEvaluation } from '../src/alerts/evaluation.js';
import { DEFAULT_PROTECTION } from '../src/alerts/protection.js';
import { createMailplane, silentLogger, type MailplaneStore } from '../src/index.js';
import { systemClock } from '../src/model/time.js';
import { hourOfMs, type ReputationIncrement } from '../src/store/index.js';
import { newSubAccount } from '../src/testing/conformance/fixtures.js';
import { medianMs } from './lib/median.js';

/** One measured size. */
export interface ReputationBenchRow {
  subAccounts: number;
  rules: number;
  buckets: number;
  messagesCounted: number;
  medianMs: number;
  /** medianMs relative to the small account. */
  ratio: number;
}

const SIZES = [
  { subAccounts: 10, rules: 1, scale: 1 },
  { subAccounts: 1_000, rules: 100, scale: 1 },
  { subAccounts: 1_000, rules: 100, scale: 100 },
];

/** Buckets of one sub-account over the last 25 hours: 3 providers × 2 IPs, 20 messages each. */
function bucketsOf(accountId: number, subAccountId: number, scale: number): ReputationIncrement[] {
  const nowHour = hourOfMs(Date.now());
  const rows: ReputationIncrement[] = [];
  for (let hour = nowHour - 24; hour <= nowHour; hour += 1)
    for (const provider of [0, 3, 11])
      for (const ipId of [0, 1])
        rows.push({
          accountId,
          subAccountId,
          hour,
          domainId: 0,
          provider,
          ipId,
          counters: { processed: 20 * scale, sent: 20 * scale, delivered: 19 * scale, hardBounced: scale },
        });
  return rows;
}

async function fill(store: MailplaneStore, accountId: number, size: (typeof SIZES)[number]): Promise<number> {
  let buckets = 0;
  for (let i = 0; i < size.subAccounts; i += 1) {
    const sub = await newSubAccount(store, accountId, `s${i}`);
    const rows = bucketsOf(accountId, sub.id, size.scale);
    await store.reputation.increment(rows);
    buckets += rows.length;
    if (i < size.rules) {
      const created = await store.alerts.create({
        accountId,
        name: `rule ${i}`,
        active: true,
        entityType: 'subAccount',
        entityId: sub.id,
        parameter: 0,
        threshold: 50,
        provider: i % 2 === 0 ? null : 0,
        processedCountThreshold: 100,
        windowHours: 24,
        emails: [],
        slackUrl: null,
        created: 0n,
      });
      if (!created.ok) throw new Error('rule not created');
    }
  }
  return buckets;
}

/** Runs the reputation benchmark. */
export async function benchReputation(): Promise<ReputationBenchRow[]> {
  const rows: Omit<ReputationBenchRow, 'ratio'>[] = [];
  for (const size of SIZES) {
    const dir = mkdtempSync(join(tmpdir(), 'mailplane-bench-reputation-'));
    const store = await openKyselyStore({ url: `sqlite:${join(dir, 'reputation.db')}` });
    try {
      const mailplane = createMailplane({
        store,
        secret: 'bench-secret-bench-secret-bench-secret!',
        logger: silentLogger,
      });
      const { account } = await mailplane.createAccount({ name: 'bench' });
      const buckets = await fill(store, account.id, size);
      const evaluate = async () => {
        const run = await new ReputationEvaluation({
          store,
          clock: systemClock,
          logger: silentLogger,
          protection: DEFAULT_PROTECTION,
          notify: async () => {},
        }).evaluate();
        if (run.rules !== size.rules) throw new Error(`evaluated ${run.rules} rules, expected ${size.rules}`);
      };
      await medianMs(3, evaluate);
      rows.push({
        subAccounts: size.subAccounts,
        rules: size.rules,
        buckets,
        messagesCounted: buckets * 20 * size.scale,
        medianMs: Number((await medianMs(15, evaluate)).toFixed(1)),
      });
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const base = rows[0]!.medianMs;
  return rows.map((row) => ({ ...row, ratio: Number((row.medianMs / base).toFixed(1)) }));
}
