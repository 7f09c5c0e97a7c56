/**
 * A delivery worker process for test/integration/delivery-multinode.test.ts: a mailplane instance
 * on a shared PostgreSQL database that only runs background jobs (no HTTP), delivering through the
 * MX transport. Prints `ready` once started; the test stops it with SIGTERM or kills it with SIGKILL.
 *
 * Environment: MAILPLANE_DELIVERY_DB_URL, MAILPLANE_DELIVERY_DNS (host:port), MAILPLANE_MX_PORT, MAILPLANE_WORKER.
 */
import { openKyselyStore } from '../../adapters/storage/kysely/index.js';
import { mxTransport } from '../../adapters/transport/smtp/index.js';
import { silentLogger } from '../../src/logging/logger.js';
import { parseDnsServers } from '../../src/dns/servers.js';
import { createMailplane } from '../../src/mailplane.js';
import { TEST_SECRET } from './api.js';

const url = process.env.MAILPLANE_DELIVERY_DB_URL!;
const store = await openKyselyStore({ url, migrate: false, maxConnections: 8 });
const mailplane = createMailplane({
  store,
  secret: TEST_SECRET,
  logger: silentLogger,
  dns: { servers: parseDnsServers(process.env.MAILPLANE_DELIVERY_DNS!) },
  delivery: { mxPort: Number(process.env.MAILPLANE_MX_PORT), pageSize: 100 },
  jobs: {
    workerId: process.env.MAILPLANE_WORKER!,
    pollIntervalMs: 20,
    leaseMs: 3_000,
    concurrency: 4,
    lanes: { delivery: 4 },
  },
  transport: (ctx) =>
    mxTransport({ resolver: ctx.resolver, port: ctx.delivery.mxPort, ehloName: process.env.MAILPLANE_WORKER! }),
});
mailplane.start();
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  // Graceful: hand back running jobs; give up after a few seconds rather than linger.
  setTimeout(() => process.exit(1), 5_000).unref();
  void mailplane.close().then(() => process.exit(0));
});
