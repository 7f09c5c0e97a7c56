/**
 * Traffic shaping end to end on real sockets: two IPs (127.0.0.2 and .3) in a pool deliver to a
 * loopback MX that throttles as Gmail does (test/support/throttling-mx.ts). With a rule under the
 * receiver's limits, nothing is refused; with a rule over them, Gmail's `421 4.7.28` slows the source
 * down and no message spends a retry on it; a Spamhaus refusal suspends one IP for Gmail while the
 * other delivers; a refused connection waits without a retry until the queue lifetime ends. Time is
 * scaled down: the receiver's window is one second, and the rules are per second.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mxTransport } from '../../adapters/transport/smtp/index.js';
import type { ShapingRule } from '../../src/shaping/rules.js';
import { contextOf } from '../../src/instance-context.js';
import { createMailplane, silentLogger, type Mailplane } from 'mailplane';
import { openKyselyStore } from 'mailplane/storage/kysely';
import type { MailplaneStore } from '../../src/store/index.js';
import { TEST_SECRET, useTestApi, type TestApiOptions } from '../support/api.js';
import { storeKinds, type StoreKind } from '../support/databases.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';
import { startThrottlingMx, type ThrottlingMx, type ThrottlingMxOptions } from '../support/throttling-mx.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the JSON shape
type Json = any;

const SOFT_BOUNCED = 3;
const HARD_BOUNCED = 4;

/**
 * One scenario's equipment, its hooks registered in the calling describe in the order they must
 * run: the DNS server and the receiver first (the instance's options read the receiver's port).
 */
function useBench(
  kind: StoreKind,
  receiver: ThrottlingMxOptions,
  rules: ShapingRule[],
  more: { queueLifetimeMs?: number; secondNode?: boolean } = {},
) {
  const bench = {} as {
    dns: TestDnsServer;
    mx: ThrottlingMx;
    sender: Sender;
    second?: Mailplane;
    secondStore?: MailplaneStore;
  };
  beforeEach(async () => {
    bench.dns = await startTestDnsServer();
    bench.mx = await startThrottlingMx({ windowMs: 1000, ...receiver });
  });
  afterEach(async () => {
    await bench.second?.close();
    await bench.secondStore?.close();
    bench.second = bench.secondStore = undefined;
    await bench.mx.close();
    await bench.dns.close();
  });
  const options = (): TestApiOptions => ({
    // Deadlines a loaded machine's loopback DNS meets: at 500 ms a lookup timed out under CI-like load
    // and the message was deferred ten minutes.
    dns: { servers: [{ host: bench.dns.host, port: bench.dns.port }], timeoutMs: 5_000, retries: 1 },
    delivery: {
      mxPort: bench.mx.port,
      socketTimeoutMs: 2000,
      greetingTimeoutMs: 2000,
      connectionTimeoutMs: 2000,
      busyRetryDelayMs: 100,
      ...(more.queueLifetimeMs !== undefined && { queueLifetimeMs: more.queueLifetimeMs }),
    },
    jobs: { pollIntervalMs: 25 },
    shaping: { rules, throttleWaitMs: 150, slowDownGapMs: 300, quietPeriodMs: 1500, cacheMs: 0 },
    transport: (ctx) => mxTransport({ resolver: ctx.resolver, port: ctx.delivery.mxPort, ehloName: 'mta.test' }),
  });
  const api = useTestApi(kind, options);
  beforeEach(async () => {
    const { dns } = bench;
    bench.sender = await createSender(api, 'shaping', 'sender.test');
    const domain = (await contextOf(api.mailplane).store.domains.get(
      bench.sender.subAccount.id,
      bench.sender.domain.id,
    ))!;
    dns.txt(`${domain.dkimSelector}._domainkey.${domain.name}`, `v=DKIM1; k=rsa; p=${domain.dkimPublicKey}`);
    // gw.test is hosted by Google Workspace: its mail is Gmail's (provider 0), at the throttling MX.
    dns.set('gw.test', 'MX', [{ exchange: 'aspmx.l.google.com', preference: 1 }]);
    dns.set('aspmx.l.google.com', 'A', ['127.0.0.1']);
    // dead.test's MX has an address where nothing listens: every connection is refused.
    dns.set('dead.test', 'MX', [{ exchange: 'mx.dead.test', preference: 10 }]);
    dns.set('mx.dead.test', 'A', ['127.0.0.9']);
    api.mailplane.start();
    if (more.secondNode) {
      // A second node on the same database, with its own caches, runner and connections.
      bench.secondStore = await openKyselyStore({ url: api.url });
      bench.second = createMailplane({
        ...options(),
        store: bench.secondStore,
        secret: TEST_SECRET,
        logger: silentLogger,
      });
      bench.second.start();
    }
  });
  const account = () => ({ account: api.accountKey });

  return {
    api,
    account,
    get mx() {
      return bench.mx;
    },
    get sender() {
      return bench.sender;
    },
    get second() {
      return bench.second;
    },
    /** A pool of 127.0.0.2 and .3 taken in turn; answers the IPs' ids by address. */
    async twoIpPool(): Promise<Map<string, number>> {
      const ips = new Map<string, number>();
      for (const address of ['127.0.0.2', '127.0.0.3']) {
        const allocated = await api.call('PUT', '/account/ip/allocate', {
          ...account(),
          body: { ips: [address], autoWarmupEnabled: false },
        });
        expect(allocated.status, allocated.text).toBe(200);
        ips.set(address, allocated.body.id);
      }
      const pool = await api.call('POST', '/account/ippool', {
        ...account(),
        body: {
          name: 'Pair',
          routingStrategy: 0,
          routingMetaData: '{}',
          ips: [...ips.keys()].map((publicIP) => ({ publicIP })),
        },
      });
      expect(pool.status, pool.text).toBe(200);
      return ips;
    },
    /** Sends to `to` in sends of 25, through the pool when there is one. */
    async send(to: string[], extra: Record<string, unknown> = { ippool: 'Pair' }): Promise<string[]> {
      const ids: string[] = [];
      for (let at = 0; at < to.length; at += 25) {
        const result = await api.call('POST', '/subaccount/email', {
          sub: bench.sender.subAccount.apiKey,
          body: sendBody(`news@${bench.sender.domain.name}`, to.slice(at, at + 25), extra),
        });
        expect(result.status, result.text).toBe(200);
        ids.push(...result.body.map((e: Json) => e.messageId));
      }
      return ids;
    },
    message: async (id: string): Promise<Json> => (await api.call('GET', `/account/message/${id}`, account())).body,
    states: async (): Promise<Json[]> => (await api.call('GET', '/account/shaping/state', account())).body,
  };
}

type Bench = ReturnType<typeof useBench>;

async function allDelivered(bench: Bench, ids: string[], timeout: number): Promise<Json[]> {
  const views: Json[] = [];
  for (const id of ids) {
    await vi.waitFor(
      async () => {
        const view = await bench.message(id);
        expect(view.status, JSON.stringify(view.events)).toBe('delivered');
      },
      { timeout, interval: 50 },
    );
    views.push(await bench.message(id));
  }
  return views;
}
const recipients = (n: number) => Array.from({ length: n }, (_, i) => `user${i}@gw.test`);
const bounced = (view: Json) => view.events.some((e: Json) => e.type === SOFT_BOUNCED || e.type === HARD_BOUNCED);

describe.each(storeKinds)('traffic shaping at delivery (%s)', (kind) => {
  describe('under the receiver limits', () => {
    // The receiver's rate over a two-second window: a loaded machine's jitter between admission and the
    // wire (CI ran a 1 s window into 421s) is then half as large against the window.
    const bench = useBench(kind, { messagesPerMinute: 40, windowMs: 2000, connectionsPerIp: 2 }, [
      // Half the receiver's rate: time here runs 30 times faster than a provider's minute, so a loaded
      // machine's jitter between admission and the wire is 30 times larger against the window.
      { destination: 'provider:gmail', source: '*', messagesPerSecond: 10, maxConnections: 2 },
    ]);

    it('delivers every message through both IPs without one refusal, in about the time the rate allows', async () => {
      await bench.twoIpPool();
      const started = Date.now();
      // 4.5 s on an idle machine; CI's loaded runs have taken over 30.
      const views = await allDelivered(bench, await bench.send(recipients(90)), 100_000);
      const elapsed = Date.now() - started;
      for (const ip of ['127.0.0.2', '127.0.0.3']) {
        const counts = bench.mx.client(ip);
        expect(counts.replies421, ip).toBe(0);
        expect(counts.refusedConnections, ip).toBe(0);
        expect(counts.maxOpen, ip).toBeLessThanOrEqual(2);
        // Both IPs carry mail. The split is the machine's timing: routing goes past an IP whose connections
        // are busy or whose next slot is later. Runs under load split 58/32 here and 82/8 in CI, so the bound
        // is a tenth of an even share.
        expect(counts.accepted, ip).toBeGreaterThanOrEqual(90 / 2 / 10);
      }
      expect(bench.mx.client('127.0.0.2').accepted + bench.mx.client('127.0.0.3').accepted).toBe(90);
      expect(views.filter(bounced)).toEqual([]);
      // 90 messages at 10 a second from each of two IPs cannot take less than about 4.5 s.
      expect(elapsed).toBeGreaterThan(3500);
      const pair = (await bench.states()).filter((s) => s.destination === 'provider:gmail');
      expect(pair.map((s) => s.source).sort()).toHaveLength(2);
      expect(pair[0]).toMatchObject({ factor: 1, ratePerMinute: 600, maxConnections: 2, suspendedUntil: null });
    }, 120_000);
  });

  describe('connections', () => {
    const bench = useBench(kind, {}, [
      {
        destination: 'provider:gmail',
        source: '*',
        maxConnections: 1,
        maxMessagesPerConnection: 4,
        idleTimeoutMs: 150,
      },
    ]);

    it('carry at most the messages per connection the rule allows, and close once idle', async () => {
      await bench.twoIpPool();
      await allDelivered(bench, await bench.send(recipients(24)), 30_000);
      for (const ip of ['127.0.0.2', '127.0.0.3']) {
        const counts = bench.mx.client(ip);
        expect(counts.maxOpen, ip).toBe(1);
        expect(counts.sessions, ip).toBeGreaterThanOrEqual(Math.ceil(counts.accepted / 4));
      }
      await vi.waitFor(() => expect(bench.mx.client('127.0.0.2').open + bench.mx.client('127.0.0.3').open).toBe(0), {
        timeout: 5000,
      });
    });
  });

  describe('over the receiver limits', () => {
    // 8 messages per IP in any 5 s: a window a loaded machine still overruns (with a 1 s window, a
    // CI run under load delivered fewer than 8 a second to each IP and met no 421 at all).
    const bench = useBench(kind, { messagesPerMinute: 8, windowMs: 5000 }, [
      { destination: 'provider:gmail', source: '*', messagesPerSecond: 40, maxConnections: 2 },
    ]);

    it("slows down on Gmail's 421 4.7.28 and spends no message's retry on it", async () => {
      const ips = await bench.twoIpPool();
      // 24: however routing splits them, one IP gets 12 or more, past the receiver's 8.
      const ids = await bench.send(recipients(24));
      const views = await allDelivered(bench, ids, 90_000);
      const throttled = bench.mx.client('127.0.0.2').replies421 + bench.mx.client('127.0.0.3').replies421;
      expect(throttled).toBeGreaterThan(0);
      // No soft bounce was recorded: the 421s made the messages wait, uncounted.
      expect(views.filter(bounced)).toEqual([]);
      // The state of an IP that got the 421s: under load routing may have sent every throttled message
      // through one of the two (a CI run found 127.0.0.2's state untouched).
      const hit = ['127.0.0.2', '127.0.0.3'].find((ip) => bench.mx.client(ip).replies421 > 0)!;
      const slowed = (await bench.states()).find((s) => s.key === `ip:${ips.get(hit)}|provider:gmail`);
      expect(slowed).toMatchObject({ reason: 'GMAIL_RATE_LIMITED' });
      expect(slowed.lastReply).toContain('4.7.28');
    }, 120_000);
  });

  describe('a blocklisted IP', () => {
    const bench = useBench(kind, { blocklisted: ['127.0.0.2'], blocklistAt: 'mail' }, [
      { destination: 'provider:gmail', source: '*', messagesPerSecond: 100, maxConnections: 2 },
    ]);

    it('is suspended for Gmail while the other IP delivers everything, until the operator resumes it', async () => {
      const ips = await bench.twoIpPool();
      const views = await allDelivered(bench, await bench.send(recipients(12)), 30_000);
      expect(views.filter(bounced)).toEqual([]);
      expect(bench.mx.client('127.0.0.3').accepted).toBe(12);
      expect(bench.mx.client('127.0.0.2').accepted).toBe(0);
      expect(bench.mx.client('127.0.0.2').blocklistRefusals).toBeGreaterThan(0);
      const key = `ip:${ips.get('127.0.0.2')}|provider:gmail`;
      const listed = (await bench.states()).find((s) => s.key === key);
      expect(listed).toMatchObject({ reason: 'SPAMHAUS_LISTED' });
      expect(listed.suspendedUntil).toBeGreaterThan(Date.now() + 23 * 3_600_000);
      // The metrics say the same.
      const scraped = await contextOf(bench.api.mailplane).metrics.registry.metrics();
      expect(scraped).toMatch(/mailplane_shaping_pushbacks_total\{action="suspend",reason="SPAMHAUS_LISTED"\} [1-9]/);
      expect(scraped).toContain(
        `mailplane_shaping_suspended{source="ip:${ips.get('127.0.0.2')}",destination="provider:gmail"} 1`,
      );
      const resumed = await bench.api.call('POST', '/account/shaping/state/resume', {
        ...bench.account(),
        body: { key },
      });
      expect(resumed.status, resumed.text).toBe(200);
      expect(resumed.body).toMatchObject({ key, suspendedUntil: null, factor: 1 });
      const unknown = await bench.api.call('POST', '/account/shaping/state/resume', {
        ...bench.account(),
        body: { key: 'ip:0|x' },
      });
      expect(unknown.status).toBe(406);
      expect(unknown.body.code).toBe('SHAPING_STATE_NOT_FOUND');
    });
  });

  describe('a receiver that refuses connections', () => {
    // A message may stay queued 1.5 s: the connections refused meanwhile are no retries.
    const bench = useBench(kind, {}, [], { queueLifetimeMs: 1500 });

    it('waits without a retry counted until the queue lifetime ends, then ends the message', async () => {
      const [id] = await (async () => {
        const result = await bench.api.call('POST', '/subaccount/email', {
          sub: bench.sender.subAccount.apiKey,
          body: sendBody(`news@${bench.sender.domain.name}`, ['someone@dead.test']),
        });
        expect(result.status, result.text).toBe(200);
        return result.body.map((e: Json) => e.messageId as string);
      })();
      await vi.waitFor(
        async () => {
          const view = await bench.message(id!);
          expect(['queued', 'deferred']).not.toContain(view.status);
        },
        { timeout: 20_000, interval: 100 },
      );
      const view = await bench.message(id!);
      // One recorded attempt only: the one that found the message past its lifetime.
      const bounces = view.events.filter((e: Json) => e.type === SOFT_BOUNCED || e.type === HARD_BOUNCED);
      expect(bounces.length + view.events.filter((e: Json) => e.type === 1).length, JSON.stringify(view)).toBe(1);
      expect(JSON.stringify(view.events)).toContain('ECONN');
    });
  });

  describe.runIf(kind === 'postgres')('two nodes on one database', () => {
    const bench = useBench(
      kind,
      // A two-second window, as in 'under the receiver limits': a loaded machine's jitter is then half as large against it.
      { messagesPerMinute: 40, windowMs: 2000, connectionsPerIp: 2 },
      // Idle connections close soon, so each node gets its turn at the two connections.
      [{ destination: 'provider:gmail', source: '*', messagesPerSecond: 10, maxConnections: 2, idleTimeoutMs: 200 }],
      { secondNode: true },
    );

    it('keep the limits for the pair, not for each node', async () => {
      await bench.twoIpPool();
      // 4.5 s on an idle machine; the one-node case above has taken over 30 s in CI's loaded runs.
      const views = await allDelivered(bench, await bench.send(recipients(90)), 100_000);
      expect(views.filter(bounced)).toEqual([]);
      for (const ip of ['127.0.0.2', '127.0.0.3']) {
        const counts = bench.mx.client(ip);
        expect(counts.replies421, ip).toBe(0);
        expect(counts.refusedConnections, ip).toBe(0);
        expect(counts.maxOpen, ip).toBeLessThanOrEqual(2);
      }
      // Both nodes delivered (each counts its own deliveries): the pair shared the limits.
      for (const node of [bench.api.mailplane, bench.second!]) {
        const counted = await contextOf(node).metrics.messages.get();
        expect(counted.values.find((v) => v.labels.outcome === 'delivered')?.value ?? 0).toBeGreaterThan(0);
      }
    }, 120_000);
  });
});
