/**
 * `npm run bench`: every benchmark of the project, each reported as a ratio against a baseline
 * measured in the same run on the same machine. `BENCH_SECONDS` sets each measured window (default 10).
 * `npm run bench -- activity` (or any case names: send, stats, routing, relay, inbound, delivery, cluster,
 * activity, hostile, fair-queues, shaping, reputation) runs only the named cases; the activity case, which fills PostgreSQL
 * with 10,000,000 messages, and the fair-queues case (about 3 minutes), run only when named.
 */
import { benchSend } from './send.js';
import { benchStats } from './stats.js';
import { benchRouting } from './routing.js';
import { benchDelivery } from './delivery.js';
import { benchRelay } from './relay.js';
import { benchInbound } from './inbound.js';
import { benchActivity } from './activity.js';
import { benchCluster } from './cluster.js';
import { benchHostile } from './hostile.js';
import { benchFairQueues } from './fair-queues.js';
import { benchShaping } from './shaping.js';
import { benchReputation } from './reputation.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const named = process.argv.slice(2);
/** A case runs when named, or when no case is named (the activity case only when named). */
const selected = (name: string) => named.length === 0 || named.includes(name);

console.log(`mailplane benchmarks (${seconds} s per case, Node ${process.version})\n`);

if (selected('send')) {
  console.log('Accepting mail over HTTP (Express example on SQLite vs bare Express, same JSON in and out):');
  console.table(await benchSend(seconds * 1000));
}

if (selected('stats')) {
  console.log('Statistics: 366-day aggregate of one sub-account, by events counted (median of 300 queries):');
  console.table(await benchStats());
}

if (selected('routing')) {
  console.log(
    'Routing decisions per second, 50-entity pool (aim: above 1,000,000 for every strategy; ratio = time per decision vs a constant pick):',
  );
  console.table(benchRouting(seconds * 100));
}

if (selected('relay')) {
  console.log(
    'SMTP relay ingest: messages accepted and committed per second (ratio vs a bare smtp-server that discards, same client):',
  );
  console.table(await benchRelay(seconds * 1000));
}

if (selected('inbound')) {
  console.log(
    'Inbound intake on SQLite: 10 KB messages with an attachment taken by the MX listener a second (store route; webhook route posting to a loopback receiver), beside the relay and a bare smtp-server that discards, same client (ratio vs bare):',
  );
  console.table(await benchInbound(seconds * 1000));
}

if (selected('delivery')) {
  console.log(
    'Delivery, accepted to received by a loopback sink, DKIM on (ratio vs raw nodemailer pooled sends with DKIM; aim: at least 0.7):',
  );
  console.table(await benchDelivery());
}

if (named.includes('activity')) {
  console.log(
    'Activity queries, one account on PostgreSQL: median ms of a 100-row page at 10,000 messages / 50,000 events vs the large fill (ratio = large / small):',
  );
  console.table(await benchActivity());
}

if (selected('cluster')) {
  console.log(
    'Cluster wake-ups on PostgreSQL: enqueued on node A to started on another node (LISTEN/NOTIFY vs polling, the baseline):',
  );
  const rows = await benchCluster(seconds);
  if (typeof rows === 'string') console.log(rows);
  else console.table(rows);
}

if (selected('hostile')) {
  console.log(
    "Hostile receivers: another tenant's message and its Delivered event, send to received, while 25 messages go to dripping, tarpit and endless MX hosts and 30 sends' events to a webhook that never answers (aim: 2 s each; memory within 100 MB of idle):",
  );
  console.table(await benchHostile());
}

if (named.includes('fair-queues')) {
  console.log(
    "Fair queues: sub-account B's transactional sends (one a second), accepted to received, while sub-account A's bulk backlog drains to the same MX (aim: B's p99 under 2 s):",
  );
  console.table(await benchFairQueues());
}

if (selected('shaping')) {
  console.log(
    'Traffic shaping: 2,000 messages through 2 IPs to an MX that takes 60 a window and 2 connections per IP, answering 421 4.7.28 past that (time 60x faster than a minute; aim: no retry spent, ratio to the ideal time near 1):',
  );
  console.table(await benchShaping());
}

if (selected('reputation')) {
  console.log(
    'Reputation evaluation, one run on SQLite (every rule and the protection of every sub-account): median ms; ratio to the small account; the last two rows hold the same buckets with 100x the mail (aim: ratio between them about 1):',
  );
  console.table(await benchReputation());
}
