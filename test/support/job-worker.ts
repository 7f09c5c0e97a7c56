/**
 * A job-queue worker process for test/integration/job-queue-multiprocess.test.ts. It runs a
 * `record` handler that inserts the job id into `job_results`, prints `ready` once polling, and
 * after reading `drain` on stdin stops when no job is pending or running, printing how many it ran.
 *
 * Environment: MAILPLANE_JOB_DB_URL (a migrated PostgreSQL database), MAILPLANE_JOB_WORKER (a name).
 */
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { openKyselyStore } from '../../adapters/storage/kysely/index.js';
import { silentLogger } from '../../src/logging/logger.js';
import { createJobRunner } from '../../src/jobs/index.js';
import { systemClock } from '../../src/model/time.js';

const url = process.env.MAILPLANE_JOB_DB_URL;
const worker = process.env.MAILPLANE_JOB_WORKER ?? `worker-${process.pid}`;
if (!url) throw new Error('MAILPLANE_JOB_DB_URL is not set');

const store = await openKyselyStore({ url, migrate: false, maxConnections: 6 });
const results = new pg.Pool({ connectionString: url, max: 4 });
let processed = 0;
const runner = createJobRunner(
  { store, clock: systemClock, logger: silentLogger },
  {
    workerId: worker,
    concurrency: 8,
    pollIntervalMs: 20,
    handlers: {
      record: async (job) => {
        await results.query('INSERT INTO job_results (job_id, worker) VALUES ($1, $2)', [job.id, worker]);
        processed++;
      },
    },
  },
);
runner.start();
process.stdout.write('ready\n');

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== 'drain') continue;
  for (;;) {
    const counts = await store.jobs.countByState('record');
    if (counts.pending + counts.running === 0) break;
    await delay(50);
  }
  await runner.stop();
  await store.close();
  await results.end();
  process.stdout.write(`${JSON.stringify({ worker, processed })}\n`);
  process.exit(0);
}
