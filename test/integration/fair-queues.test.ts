/**
 * Fair queues and priority (docs/shaping.md): a sub-account's queued bulk mail does not hold back
 * another sub-account's transactional message, through the HTTP API, the job runner and a real
 * SMTP sink, on each store.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { createSender, sendBody } from '../support/sending.js';

/**
 * Network timeouts far above what loopback needs: a lookup or a connection that timed out on a loaded
 * machine would be retried on the test's manual clock, which never moves here, and its page never sent.
 */
const GENEROUS_TIMEOUT_MS = 30_000;

/** How long the backlog may take to drain: about 5 s on an idle machine, ten times that and more. */
const DRAIN_TIMEOUT_MS = 60_000;

/** Bulk sends sub-account A has queued, of {@link BULK_RECIPIENTS} each (bulk by the recipient rule). */
const BULK_SENDS = 8;
const BULK_RECIPIENTS = 11;

describe.each(storeKinds)('fair queues and priority (%s)', (kind) => {
  let env: DeliveryEnv;
  beforeEach(async () => {
    // One delivery slot and small pages: the backlog drains one page at a time, in claim order.
    env = await startDeliveryEnv(
      kind,
      {
        pageSize: 5,
        concurrency: 1,
        connectionTimeoutMs: GENEROUS_TIMEOUT_MS,
        greetingTimeoutMs: GENEROUS_TIMEOUT_MS,
        socketTimeoutMs: GENEROUS_TIMEOUT_MS,
      },
      { lanes: { delivery: 1 }, dnsTimeoutMs: GENEROUS_TIMEOUT_MS },
    );
  });
  afterEach(() => env.close());

  it(
    "delivers B's transactional message before A's queued bulk backlog drains",
    async () => {
      const b = await createSender(env.api, 'tenant-b', 'b-sender.test');
      // A's backlog is accepted while the runner is stopped, so all of it is due before B sends.
      await env.api.mailplane.stop();
      const everyone: string[] = [];
      for (let send = 0; send < BULK_SENDS; send++) {
        const to = Array.from({ length: BULK_RECIPIENTS }, (_, i) => `a${send}-${i}@${RCPT_DOMAIN}`);
        await env.send(to);
        everyone.push(...to);
      }
      const reset = await env.api.call('POST', '/subaccount/email', {
        sub: b.subAccount.apiKey,
        body: sendBody(`alerts@${b.domain.name}`, [`reset@${RCPT_DOMAIN}`], { subject: 'Your reset link' }),
      });
      expect(reset.status).toBe(200);
      const [entry] = reset.body as Array<{ messageId: string }>;
      await env.api.mailplane.start();

      await env.waitForStatus(entry!.messageId, 'delivered');
      const order = env.sink.received.map((m) => m.rcptTo[0]);
      const position = order.indexOf(`reset@${RCPT_DOMAIN}`);
      // At most the page already on its way goes first; in the old runAt order it was 41st of 89.
      expect(position).toBeGreaterThanOrEqual(0);
      expect(position).toBeLessThan(5);

      // Then the whole backlog arrives, each recipient once: a failure names who is missing.
      everyone.push(`reset@${RCPT_DOMAIN}`);
      const arrived = () => env.sink.received.map((m) => m.rcptTo[0]!);
      await vi.waitFor(() => expect(everyone.filter((to) => !arrived().includes(to))).toEqual([]), {
        timeout: DRAIN_TIMEOUT_MS,
        interval: 50,
      });
      expect(arrived().sort()).toEqual([...everyone].sort());
    },
    2 * DRAIN_TIMEOUT_MS,
  );

  it('takes the class a send names, and refuses one that is not a class', async () => {
    const refused = await env.api.call('POST', '/subaccount/email', {
      sub: env.key,
      body: sendBody(`news@${env.sender.domain.name}`, [`x@${RCPT_DOMAIN}`], { stream: 'urgent' }),
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'INVALID_STREAM' });
    expect(refused.body.message).toContain('"transactional" or "bulk"');

    await env.api.mailplane.stop();
    const [bulk] = await env.send([`one@${RCPT_DOMAIN}`], { stream: 'bulk' });
    const [transactional] = await env.send([`two@${RCPT_DOMAIN}`], { stream: 'transactional' });
    await env.api.mailplane.start();
    await env.waitForStatus(bulk!.messageId, 'delivered');
    await env.waitForStatus(transactional!.messageId, 'delivered');
    // Sent second, named transactional: delivered first.
    expect(env.sink.received.map((m) => m.rcptTo[0])).toEqual([`two@${RCPT_DOMAIN}`, `one@${RCPT_DOMAIN}`]);
  });
});
