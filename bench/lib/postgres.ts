/** A throwaway PostgreSQL database for a benchmark (bench/cluster.ts, bench/fair-queues.ts). */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A new, empty database on the server at `server` (a URL), and a function that drops it. */
export async function freshDatabase(server: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `mailplane_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: server });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}
