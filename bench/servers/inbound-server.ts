/**
 * The inbound benchmark's server (bench/inbound.ts), in its own process: mailplane on SQLite with a
 * sub-account whose domain `bench.example.com` is verified (its records published on a DNS server of
 * this process, which also serves the SPF and DMARC records of the sending domain `remote.test`),
 * receiving enabled on it and one catch-all route, made through the API. `BENCH_INBOUND_ACTION=store`
 * keeps every message (workers off: intake only, as the relay bench); `webhook` posts every message
 * to `BENCH_INBOUND_WEBHOOK_URL` (workers on, so the posts run beside the intake as they would in
 * production). Prints `listening on http://127.0.0.1:<port>` for the inbound listener's port.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openKyselyStore } from '../../adapters/storage/kysely/index.js';
import { silentLogger } from '../../src/logging/logger.js';
import { createInboundReceiver } from '../../src/inbound/receiver.js';
import { createMailplane, type Mailplane } from '../../src/mailplane.js';
import { startTestDnsServer } from '../../test/support/dns-server.js';
import { benchSubAccount } from '../lib/sender.js';

const DOMAIN = 'bench.example.com';
const MX_HOST = 'mx.bench.test';
const action = process.env.BENCH_INBOUND_ACTION === 'webhook' ? 'webhook' : 'store';

/** One API call as the sub-account; throws on an error answer. */
async function call(mailplane: Mailplane, apiKey: string, method: string, path: string, body?: unknown) {
  const response = await mailplane.handle({
    method,
    path,
    headers: { 'content-type': 'application/json', 'x-subaccount-apikey': apiKey },
    query: new URLSearchParams(),
    rawBody: body === undefined ? '' : JSON.stringify(body),
  });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${response.body}`);
  return JSON.parse(response.body);
}

const dns = await startTestDnsServer();
dns.set(DOMAIN, 'MX', [{ exchange: MX_HOST, preference: 10 }]);
dns.txt('remote.test', 'v=spf1 ip4:127.0.0.1 -all');
dns.txt('_dmarc.remote.test', 'v=DMARC1; p=reject');
const dir = mkdtempSync(join(tmpdir(), 'mailplane-bench-inbound-'));
const store = await openKyselyStore({ url: `sqlite:${join(dir, 'mailplane.db')}` });
const mailplane = createMailplane({
  store,
  secret: 'bench-secret-bench-secret-bench-secret-0123',
  logger: silentLogger,
  dns: { servers: [{ host: dns.host, port: dns.port }], rdapBaseUrl: null },
  inbound: { hostname: MX_HOST },
  webhooks: { allowPrivateTargets: true },
});
const { apiKey: accountKey } = await mailplane.createAccount({ name: 'bench' });
const { apiKey } = await benchSubAccount(mailplane, accountKey, 'bench', DOMAIN, dns);
const [domain] = await call(mailplane, apiKey, 'GET', '/subaccount/domain');
await call(mailplane, apiKey, 'POST', `/subaccount/domain/${domain.id}/inbound`);
await call(mailplane, apiKey, 'POST', '/subaccount/route', {
  pattern: `*@${DOMAIN}`,
  action,
  ...(action === 'webhook' && { url: process.env.BENCH_INBOUND_WEBHOOK_URL }),
});
if (action === 'webhook') await mailplane.start();
// One client sends the whole load: the per-address message rate would refuse most of it.
const receiver = createInboundReceiver(mailplane, { hostname: MX_HOST, maxMessagesPerMinutePerAddress: 1_000_000 });
const { port } = await receiver.listen(0, '127.0.0.1');
console.log(`listening on http://127.0.0.1:${port}`);
process.once('SIGTERM', () => {
  void receiver
    .close()
    .then(() => mailplane.close())
    .then(() => dns.close())
    .then(() => process.exit(0));
});
