import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openKyselyStore } from 'mailplane/storage/kysely';
import { freshDatabaseUrl, pgUrl } from '../support/databases.js';
import { programFile } from '../support/programs.js';

const JOBS = 2_000;

type Worker = ChildProcessByStdio<Writable, Readable, null>;

/** Resolves with the next line the worker prints. */
function nextLine(worker: Worker): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      const end = buffered.indexOf('\n');
      if (end < 0) return;
      worker.stdout.off('data', onData);
      worker.off('exit', onExit);
      resolve(buffered.slice(0, end));
    };
    const onExit = (code: number | null) => reject(new Error(`worker exited with ${code} before answering`));
    worker.stdout.on('data', onData);
    worker.once('exit', onExit);
  });
}

describe.skipIf(!pgUrl)('job queue shared by two processes on PostgreSQL', () => {
  let url: string;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ url, drop } = await freshDatabaseUrl('postgres'));
  });
  afterAll(() => drop?.());

  it('drains 2,000 jobs with every job run exactly once across both workers', { timeout: 180_000 }, async () => {
    const store = await openKyselyStore({ url });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const workers: Worker[] = [];
    try {
      await client.query('CREATE TABLE job_results (job_id bigint NOT NULL, worker text NOT NULL)');
      for (const name of ['worker-a', 'worker-b']) {
        workers.push(
          spawn(process.execPath, [programFile('job-worker')], {
            env: { ...process.env, MAILPLANE_JOB_DB_URL: url, MAILPLANE_JOB_WORKER: name },
            stdio: ['pipe', 'pipe', 'inherit'],
          }),
        );
      }
      // Listen for exit from the start: a worker that finishes first exits before the other answers.
      const exitCodes = Promise.all(workers.map((w) => once(w, 'exit').then(([code]) => code as number)));
      expect(await Promise.all(workers.map(nextLine))).toEqual(['ready', 'ready']);

      const now = Date.now();
      const enqueued = await store.jobs.enqueue(
        Array.from({ length: JOBS }, (_, i) => ({ kind: 'record', payload: { i }, runAt: now })),
      );
      const ids = enqueued.map((r) => Number(r.id)).sort((a, b) => a - b);
      expect(new Set(ids).size).toBe(JOBS);

      const summaries = workers.map(nextLine);
      for (const worker of workers) worker.stdin.write('drain\n');
      const reports = (await Promise.all(summaries)).map(
        (line) => JSON.parse(line) as { worker: string; processed: number },
      );
      expect(await exitCodes).toEqual([0, 0]);

      const rows = (await client.query<{ job_id: string; worker: string }>('SELECT job_id, worker FROM job_results'))
        .rows;
      const recorded = rows.map((r) => Number(r.job_id)).sort((a, b) => a - b);
      expect(recorded).toEqual(ids); // none twice, none missing
      // Both processes took part, and each counted what it recorded.
      for (const report of reports) {
        expect(report.processed).toBeGreaterThan(0);
        expect(rows.filter((r) => r.worker === report.worker)).toHaveLength(report.processed);
      }
      expect(await store.jobs.countByState()).toEqual({ pending: 0, running: 0, dead: 0 });
    } finally {
      for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
      await client.end();
      await store.close();
    }
  });
});
