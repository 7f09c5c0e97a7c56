/**
 * Property-based fuzzing of the three SMTP listeners that read mail written by others, over real
 * sockets on loopback: hostile MIME into the SMTP relay (with a sub-account's login), hostile
 * delivery-status and feedback reports into the bounce receiver (to real messages' VERP addresses
 * and the feedback address), hostile MIME into the inbound listener (to a catch-all route). Every message is answered (250, or a 4xx/5xx refusal with an enhanced
 * code and words), never by a fault (`451`), a dropped connection or silence; nothing is logged as
 * an error; what the relay accepted is stored once per envelope recipient and delivered to the
 * sink, what it refused is not stored at all; and both listeners still do their work afterwards.
 *
 * CI runs MAILPLANE_SMTP_FUZZ_RUNS messages and reports per store kind (default 120; the inbound
 * listener half as many, which its test shares with the relay's parsing); `npm run fuzz`
 * runs 3,000. A failure prints fast-check's seed and path: replay it with
 * `MAILPLANE_FUZZ_SEED=<seed> MAILPLANE_FUZZ_PATH=<path> npx vitest run test/integration/smtp-fuzz.test.ts`.
 */
import fc from 'fast-check';
import { contextOf } from '../../src/instance-context.js';
import nodemailer, { type Transporter } from 'nodemailer';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createBounceReceiver,
  createInboundReceiver,
  createSmtpRelay,
  type BounceReceiver,
  type InboundReceiver,
  type Logger,
  type SmtpRelay,
} from 'mailplane';
import { parsePattern } from '../../src/inbound/patterns.js';
import { nowNs } from '../../src/model/time.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { describeBytes, hostileMessage, hostileReport } from '../support/fuzz-mime.js';
import { dsn } from '../support/reports.js';

const RUNS = Number(process.env.MAILPLANE_SMTP_FUZZ_RUNS ?? 120);
const SEED = process.env.MAILPLANE_FUZZ_SEED === undefined ? undefined : Number(process.env.MAILPLANE_FUZZ_SEED);
const PATH = process.env.MAILPLANE_FUZZ_PATH;
const TIMEOUT_MS = Math.max(120_000, RUNS * 200);
/** The inbound listener's slice: it parses as the relay does, so half the runs cover what is its own. */
const INBOUND_RUNS = Math.ceil(RUNS / 2);
const FEEDBACK = 'fbl@bounces.mailplane.test';
/** A refusal: a 4xx or 5xx reply with an enhanced status code and words after it. */
const REFUSAL = /^[45]\d\d [45]\.\d{1,3}\.\d{1,3} \S/;
/** The states a message ends in when its delivery is over (docs/activity.md). */
const FINAL = ['delivered', 'dropped', 'smtp_dropped', 'hard_bounced'];

/** An SMTP client's failure: the server's reply when there was one. */
type SmtpFailure = { responseCode?: number; response?: string; message: string };

/** What is wrong with how a listener answered one message, or `null` (250, or a refusal in plain words). */
function answerProblem(outcome: { ok: true; response: string } | { ok: false; error: SmtpFailure }): string | null {
  if (outcome.ok) return /^250 /.test(outcome.response) ? null : `accepted with ${outcome.response}`;
  const { responseCode, response, message } = outcome.error;
  if (responseCode === undefined) return `no reply: ${message}`;
  if (responseCode === 451) return `a fault: ${response}`;
  return REFUSAL.test(response ?? '') ? null : `a refusal without an enhanced code and words: ${response}`;
}

describe.each(storeKinds)('hostile mail into the SMTP listeners (%s)', (kind) => {
  const errors: string[] = [];
  const logger: Logger = {
    info: () => {},
    warn: () => {},
    error: (message, fields) => errors.push(`${message} ${JSON.stringify(fields ?? {})}`),
  };
  let env: DeliveryEnv;
  let relay: SmtpRelay;
  let receiver: BounceReceiver;
  let relayClient: Transporter;
  let bounceClient: Transporter;
  let inbound: InboundReceiver;
  let inboundClient: Transporter;
  /** Envelope recipients of the messages the relay accepted. */
  const accepted = new Set<string>();

  beforeAll(async () => {
    env = await startDeliveryEnv(kind, {}, { logger });
    relay = createSmtpRelay(env.api.mailplane);
    receiver = createBounceReceiver(env.api.mailplane, { feedbackAddresses: [FEEDBACK] });
    const auth = env.sender.subAccount.smtpAuths[0]!;
    // Without TLS on loopback, where the relay allows AUTH in clear; a stalled reply fails in 15 s.
    const common = {
      host: '127.0.0.1',
      ignoreTLS: true,
      pool: true,
      maxConnections: 1,
      socketTimeout: 15_000,
      greetingTimeout: 15_000,
    };
    relayClient = nodemailer.createTransport({
      ...common,
      port: (await relay.listen(0, '127.0.0.1')).port,
      auth: { user: auth.username, pass: auth.password },
    });
    bounceClient = nodemailer.createTransport({ ...common, port: (await receiver.listen(0, '127.0.0.1')).port });
    // The inbound listener: the sender's domain receives, every address of it into a store route.
    const store = contextOf(env.api.mailplane).store;
    const { subAccount, domain } = env.sender;
    await store.inbound.enableDomain(subAccount.id, domain.id, nowNs(env.clock));
    const pattern = parsePattern(`*@${domain.name}`);
    if (!pattern.ok) throw new Error(pattern.message);
    const at = nowNs(env.clock);
    const route = { ...pattern.value, action: 'store' as const, url: null, secretSealed: null, forwardTo: null };
    await store.inbound.createRoute({
      accountId: subAccount.accountId,
      subAccountId: subAccount.id,
      ...route,
      created: at,
    });
    inbound = createInboundReceiver(env.api.mailplane, { hostname: 'mx.mailplane.test' });
    inboundClient = nodemailer.createTransport({ ...common, port: (await inbound.listen(0, '127.0.0.1')).port });
  });
  // Each test counts its own errors: one that failed does not fail the next.
  beforeEach(() => void errors.splice(0));
  afterAll(async () => {
    relayClient?.close();
    bounceClient?.close();
    inboundClient?.close();
    await relay?.close();
    await receiver?.close();
    await inbound?.close();
    await env?.close();
  });

  const submit = async (client: Transporter, from: string, to: string[], raw: Buffer) => {
    try {
      const info = (await client.sendMail({ envelope: { from, to }, raw })) as { response: string };
      return { ok: true as const, response: info.response };
    } catch (error) {
      return { ok: false as const, error: error as SmtpFailure };
    }
  };

  /** Every message of the sub-account, by envelope recipient, through the activity API. */
  async function messagesByRecipient(): Promise<Map<string, { messageID: string; status: string }>> {
    const found = new Map<string, { messageID: string; status: string }>();
    let cursor: string | null = null;
    do {
      const page = await env.api.call('GET', '/subaccount/message', {
        sub: env.key,
        query: { limit: 1000, ...(cursor && { cursor }) },
      });
      expect(page.status).toBe(200);
      for (const item of page.body.items as Array<{ messageID: string; status: string; to: { email: string } }>)
        found.set(item.to.email.toLowerCase(), item);
      cursor = page.body.nextCursor as string | null;
    } while (cursor);
    return found;
  }

  it(
    'the relay answers every message, stores what it accepted once per recipient and nothing it refused, and delivers it all',
    async () => {
      const from = `news@${env.sender.domain.name}`;
      let n = 0;
      await fc.assert(
        fc.asyncProperty(hostileMessage(from), fc.integer({ min: 1, max: 3 }), async (raw, count) => {
          n += 1;
          const to = Array.from({ length: count }, (_, j) => `fuzz${n}-${j}@${RCPT_DOMAIN}`);
          const outcome = await submit(relayClient, from, to, raw);
          const problem = answerProblem(outcome);
          if (problem) throw new Error(`${problem} (the message: ${describeBytes(raw)})`);
          if (outcome.ok) for (const address of to) accepted.add(address);
          expect(errors).toEqual([]);
        }),
        {
          numRuns: RUNS,
          ...(SEED !== undefined && { seed: SEED }),
          ...(PATH !== undefined && { path: PATH }),
          endOnFailure: true,
        },
      );
      expect(accepted.size, 'the generator should get some messages past the relay').toBeGreaterThan(0);

      // What was accepted is stored once per recipient and is delivered (the sink takes everything);
      // what was refused left nothing behind: the stored fuzz recipients are exactly the accepted ones.
      let stored = new Map<string, { messageID: string; status: string }>();
      await vi.waitFor(
        async () => {
          stored = await messagesByRecipient();
          const waiting = [...accepted].filter((address) => !FINAL.includes(stored.get(address)?.status ?? ''));
          if (waiting.length > 0)
            throw new Error(
              `not delivered yet: ${waiting
                .slice(0, 5)
                .map((a) => `${a} ${stored.get(a)?.status ?? 'missing'}`)
                .join(', ')}`,
            );
        },
        { timeout: 60_000, interval: 200 },
      );
      expect([...stored.keys()].filter((address) => address.startsWith('fuzz')).sort()).toEqual([...accepted].sort());
      expect([...accepted].filter((address) => stored.get(address)!.status !== 'delivered')).toEqual([]);
      expect(errors).toEqual([]);

      // The relay still takes an ordinary message.
      const canary = await submit(
        relayClient,
        from,
        [`canary@${RCPT_DOMAIN}`],
        Buffer.from(`From: ${from}\r\nTo: canary@${RCPT_DOMAIN}\r\nSubject: still here\r\n\r\nhello\r\n`),
      );
      expect(canary).toMatchObject({ ok: true, response: expect.stringMatching(/^250 /) });
    },
    TIMEOUT_MS,
  );

  it(
    'the bounce receiver answers every report, and still applies an ordinary one afterwards',
    async () => {
      // Reports go to messages of its own, sent through the API and delivered.
      const sent = await env.send(Array.from({ length: 6 }, (_, i) => `bounced${i}@${RCPT_DOMAIN}`));
      const delivered = sent.map((entry) => entry.messageId);
      for (const id of delivered) await env.waitForStatus(id, 'delivered');
      const host = (await contextOf(env.api.mailplane).store.domains.get(
        env.sender.subAccount.id,
        env.sender.domain.id,
      ))!.returnPathHost;
      // One delivered message is kept out of the fuzzing, for the ordinary report at the end.
      const [kept, ...targets] = delivered;
      const recipient = fc.oneof(
        fc.constantFrom(...targets).map((id) => `b+${id}@${host}`),
        fc.constant(FEEDBACK),
      );
      await fc.assert(
        fc.asyncProperty(hostileReport(targets, env.sender.domain.name), recipient, async (raw, to) => {
          const problem = answerProblem(await submit(bounceClient, 'MAILER-DAEMON@mx.rcpt.test', [to], raw));
          if (problem) throw new Error(`${problem} (the report to ${to}: ${describeBytes(raw)})`);
          expect(errors).toEqual([]);
        }),
        {
          numRuns: RUNS,
          ...(SEED !== undefined && { seed: SEED }),
          ...(PATH !== undefined && { path: PATH }),
          endOnFailure: true,
        },
      );

      const verp = `b+${kept}@${host}`;
      const ordinary = await submit(
        bounceClient,
        'MAILER-DAEMON@mx.rcpt.test',
        [verp],
        Buffer.from(dsn(verp, `x@${RCPT_DOMAIN}`, 'failed', '5.1.1', '550 5.1.1 User unknown')),
      );
      expect(ordinary).toMatchObject({ ok: true, response: expect.stringMatching(/^250 /) });
      await env.waitForStatus(kept!, 'hard_bounced');
      expect(errors).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it(
    'the inbound listener answers every message, and stores what it accepted once per recipient and nothing it refused',
    async () => {
      const domain = env.sender.domain.name;
      const from = 'alice@remote.test';
      const received: string[] = [];
      let n = 0;
      await fc.assert(
        fc.asyncProperty(hostileMessage(from), fc.integer({ min: 1, max: 2 }), async (raw, count) => {
          n += 1;
          const to = Array.from({ length: count }, (_, j) => `fuzz${n}-${j}@${domain}`);
          const outcome = await submit(inboundClient, from, to, raw);
          const problem = answerProblem(outcome);
          if (problem) throw new Error(`${problem} (the message: ${describeBytes(raw)})`);
          if (outcome.ok) received.push(...to);
          expect(errors).toEqual([]);
        }),
        {
          numRuns: INBOUND_RUNS,
          ...(SEED !== undefined && { seed: SEED }),
          ...(PATH !== undefined && { path: PATH }),
          endOnFailure: true,
        },
      );
      const store = contextOf(env.api.mailplane).store;
      const stored: string[] = [];
      for (;;) {
        const page = await store.inbound.listMessages(env.sender.subAccount.id, { limit: 1000, offset: stored.length });
        stored.push(...page.map((message) => message.rcptTo));
        if (page.length < 1000) break;
      }
      expect(stored.sort()).toEqual(received.sort());

      // The listener still takes an ordinary message.
      const canary = await submit(
        inboundClient,
        from,
        [`canary@${domain}`],
        Buffer.from(`From: ${from}\r\nTo: canary@${domain}\r\nSubject: still here\r\n\r\nhello\r\n`),
      );
      expect(canary).toMatchObject({ ok: true, response: expect.stringMatching(/^250 /) });
      expect(errors).toEqual([]);
    },
    TIMEOUT_MS,
  );
});
