/**
 * A delivery test bench: a mailplane instance whose MX transport resolves through a real dns2
 * server on loopback and connects to a real SMTP sink, with a manual clock for retries.
 */
import { vi } from 'vitest';
import { manualClock, type Logger } from 'mailplane';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { mxTransport } from '../../adapters/transport/smtp/index.js';
import type { DeliveryConfig } from '../../src/delivery/config.js';
import { contextOf } from '../../src/instance-context.js';
import type { WebhookDeliveryConfig } from '../../src/webhook/config.js';
import type { AlertNotifyConfig } from '../../src/alerts/notify-config.js';
import { createTestApi, type TestApi, type TestApiOptions } from './api.js';
import type { StoreKind } from './databases.js';
import { startTestDnsServer, type TestDnsServer } from './dns-server.js';
import { createSender, sendBody, type Sender } from './sending.js';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';

/** Start of the manual clock: 2026-05-01T12:00:00Z. */
export const T0 = Date.UTC(2026, 4, 1, 12);

/** What {@link startDeliveryEnv} gives a test. */
export interface DeliveryEnv {
  api: TestApi;
  dns: TestDnsServer;
  sink: SmtpSink;
  clock: ReturnType<typeof manualClock>;
  sender: Sender;
  /** The sub-account key. */
  key: string;
  /** Sends through the API from `news@<sending domain>`; answers the per-recipient entries. */
  send(
    to: string[],
    extra?: Record<string, unknown>,
  ): Promise<Array<{ messageId: string; to: string; errorCode?: number }>>;
  /** Waits until the message has this status (as `GET /account/message/:id` reports it). */
  waitForStatus(messageId: string, status: string | string[]): Promise<MessageView>;
  message(messageId: string): Promise<MessageView>;
  /** Waits until the message view satisfies `check` (which throws until it does). */
  waitForMessage(messageId: string, check: (view: MessageView) => void): Promise<MessageView>;
  /** Moves the clock and wakes the runner. */
  advance(ms: number): void;
  /** Verifies the DKIM signature of a received message against the test DNS (mailauth). */
  verifyDkim(raw: Buffer): Promise<{ status: string; domain: string; signedHeaders: string[] }>;
  close(): Promise<void>;
}

/** The message resource as the API returns it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the JSON shape
export type MessageView = any;

/** The recipient domain the sink serves as MX of. */
export const RCPT_DOMAIN = 'rcpt.test';

/** A week of the test's clock: longer than any jump a test makes, short enough for a timer (its renewals run every third of it). */
const TEST_LEASE_MS = 7 * 24 * 3_600_000;

/**
 * Starts DNS, a sink (the MX of {@link RCPT_DOMAIN}) and mailplane with an MX transport; creates a
 * sub-account whose domain `sender.test` is verified and whose DKIM key is published.
 */
export async function startDeliveryEnv(
  kind: StoreKind,
  delivery: Partial<DeliveryConfig> = {},
  {
    logger,
    webhooks,
    alerts,
    dnsTimeoutMs = 5_000,
    wrapStore,
    ...jobs
  }: {
    /** A wrapper around the instance's store (see {@link TestApiOptions}). */
    wrapStore?: TestApiOptions['wrapStore'];
    shutdownGraceMs?: number;
    /** Attempts of a job before the runner gives up on it (default the runner's, 10). */
    maxAttempts?: number;
    /** Slots of the runner's lanes (`jobs.lanes`), e.g. one delivery slot to queue a backlog. */
    lanes?: Record<string, number>;
    logger?: Logger;
    webhooks?: Partial<WebhookDeliveryConfig>;
    /** The `alerts` option (incident notification emails' `from`). */
    alerts?: Partial<AlertNotifyConfig>;
    /**
     * The resolver's deadline per query (default 5 s, with one retry): the loopback server answers at
     * once, but a loaded CI machine once kept a query past 500 ms and the message was deferred.
     */
    dnsTimeoutMs?: number;
  } = {},
): Promise<DeliveryEnv> {
  const dns = await startTestDnsServer();
  const sink = await startSmtpSink();
  const clock = manualClock(T0);
  const config: Partial<DeliveryConfig> = {
    mxPort: sink.port,
    socketTimeoutMs: 1500,
    greetingTimeoutMs: 1500,
    connectionTimeoutMs: 1500,
    ...delivery,
  };
  const api = await createTestApi(kind, {
    ...(wrapStore && { wrapStore }),
    ...(logger && { logger }),
    ...(webhooks && { webhooks }),
    ...(alerts && { alerts }),
    clock,
    dns: { servers: [{ host: dns.host, port: dns.port }], timeoutMs: dnsTimeoutMs, retries: 1 },
    delivery: config,
    // The tests move the manual clock by hours while an attempt runs: with the runner's 60 s lease
    // the attempt's own runner would claim it again as abandoned and count one attempt too many.
    jobs: { pollIntervalMs: 25, leaseMs: TEST_LEASE_MS, ...jobs },
    transport: (ctx) =>
      mxTransport({
        resolver: ctx.resolver,
        port: ctx.delivery.mxPort,
        ehloName: 'mta.mailplane.test',
        connectionTimeoutMs: ctx.delivery.connectionTimeoutMs,
        greetingTimeoutMs: ctx.delivery.greetingTimeoutMs,
        socketTimeoutMs: ctx.delivery.socketTimeoutMs,
      }),
  });
  const sender = await createSender(api, 'delivery', 'sender.test');
  const domain = (await contextOf(api.mailplane).store.domains.get(sender.subAccount.id, sender.domain.id))!;
  dns.txt(`${domain.dkimSelector}._domainkey.${domain.name}`, `v=DKIM1; k=rsa; p=${domain.dkimPublicKey}`);
  dns.set(RCPT_DOMAIN, 'MX', [{ exchange: `mx.${RCPT_DOMAIN}`, preference: 10 }]);
  dns.set(`mx.${RCPT_DOMAIN}`, 'A', ['127.0.0.1']);
  api.mailplane.start();
  const key = sender.subAccount.apiKey;

  const message = async (messageId: string) =>
    (await api.call('GET', `/account/message/${messageId}`, { account: api.accountKey })).body;
  return {
    api,
    dns,
    sink,
    clock,
    sender,
    key,
    async send(to, extra = {}) {
      const result = await api.call('POST', '/subaccount/email', {
        sub: key,
        body: sendBody(`news@${sender.domain.name}`, to, extra),
      });
      if (result.status !== 200) throw new Error(`send: ${result.status} ${result.text}`);
      return result.body;
    },
    message,
    async waitForMessage(messageId, check) {
      let last: MessageView;
      await vi.waitFor(
        async () => {
          last = await message(messageId);
          check(last);
        },
        { timeout: 15_000, interval: 20 },
      );
      return last;
    },
    async waitForStatus(messageId, status) {
      const wanted = Array.isArray(status) ? status : [status];
      let last: MessageView;
      await vi.waitFor(
        async () => {
          last = await message(messageId);
          if (!wanted.includes(last.status)) throw new Error(`status ${last.status}, want ${wanted.join('|')}`);
        },
        { timeout: 15_000, interval: 20 },
      );
      return last;
    },
    advance(ms) {
      clock.advance(ms);
      contextOf(api.mailplane).jobs.notify();
    },
    async verifyDkim(raw) {
      const resolver = async (name: string, type: string) => {
        if (type !== 'TXT') throw Object.assign(new Error('not served'), { code: 'ENOTFOUND' });
        const answer = await contextOf(api.mailplane).resolver.resolveTxt(name, { fresh: true });
        if (!answer.ok) throw Object.assign(new Error(answer.reason), { code: 'ENOTFOUND' });
        return answer.records.map((r) => [r]);
      };
      const result = await dkimVerify(raw, { resolver });
      const first = result.results[0];
      return {
        status: first?.status?.result ?? 'none',
        domain: first?.signingDomain ?? '',
        signedHeaders: (first?.signingHeaders?.keys ?? '').split(/\s*:\s*/).map((h) => h.toLowerCase()),
      };
    },
    async close() {
      await api.close();
      await sink.close();
      await dns.close();
    },
  };
}
