/**
 * `mailplane.handleMetrics`: the Prometheus text after real traffic (a send delivered to a real
 * SMTP sink through real DNS), on SQLite and PostgreSQL, and the bearer token.
 */
import { simpleParser } from 'mailparser';
import { contextOf } from '../../src/instance-context.js';
import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { createBounceReceiver, type Mailplane } from 'mailplane';
import { createTestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv } from '../support/delivery-env.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { arf } from '../support/reports.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function scrape(mailplane: Mailplane, authorization?: string) {
  const response = await mailplane.handleMetrics({
    method: 'GET',
    path: '/metrics',
    headers: authorization ? { authorization } : {},
    query: new URLSearchParams(),
  });
  return { status: response.status, headers: response.headers, text: response.body };
}

/** The value of one sample line, e.g. `mailplane_messages_total{outcome="delivered"}`; 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe.each(storeKinds)('metrics on %s', (kind) => {
  it('counts the accepted and delivered message, its reply, its latency and the API requests', async () => {
    const env = await startDeliveryEnv(kind);
    cleanups.push(() => env.close());
    const before = await scrape(env.api.mailplane);
    expect(before.status).toBe(200);
    expect(before.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(before.text, 'mailplane_messages_total{outcome="delivered"}')).toBe(0);

    // The second recipient is suppressed: dropped at send.
    const suppressed = await env.api.call('POST', '/subaccount/suppression', {
      sub: env.key,
      body: { manual: [{ email: `sup@${RCPT_DOMAIN}` }] },
    });
    expect(suppressed.status).toBe(200);
    const [entry, dropped] = await env.send([`ada@${RCPT_DOMAIN}`, `sup@${RCPT_DOMAIN}`]);
    expect(dropped!.errorCode).toBe(2);
    await env.waitForStatus(entry!.messageId, 'delivered');
    const { text } = await scrape(env.api.mailplane);
    expect(sample(text, 'mailplane_messages_total{outcome="accepted"}')).toBe(1);
    expect(sample(text, 'mailplane_messages_total{outcome="delivered"}')).toBe(1);
    expect(sample(text, 'mailplane_messages_total{outcome="refused"}')).toBe(1);
    expect(sample(text, 'mailplane_messages_dropped_total{reason="SUPPRESSED"}')).toBe(1);
    expect(sample(text, 'mailplane_smtp_replies_total{class="2xx",provider="default"}')).toBe(1);
    expect(sample(text, 'mailplane_delivery_latency_seconds_count')).toBe(1);
    expect(sample(text, 'mailplane_http_requests_total{method="POST",route="/subaccount/email",status="200"}')).toBe(1);
    // The message reads of waitForStatus, under the route's pattern, not its concrete path.
    expect(text).toMatch(
      /^mailplane_http_requests_total\{method="GET",route="\/account\/message\/:\w+",status="200"\} [1-9]/m,
    );
    // Every job kind is named, at 0 once its queue has drained.
    expect(sample(text, 'mailplane_job_queue_depth{kind="deliver-batch"}')).toBe(0);
    expect(sample(text, 'mailplane_job_oldest_due_age_seconds{kind="deliver-batch"}')).toBe(0);
    // Bounded labels only: no recipient address, no message id.
    expect(text).not.toContain(RCPT_DOMAIN);
    expect(text).not.toContain(entry!.messageId);
  });

  it('counts webhook POSTs by result and DNS checks by result', async () => {
    const receiver = await startWebhookReceiver();
    cleanups.push(() => receiver.close());
    const env = await startDeliveryEnv(kind, {}, { webhooks: { allowPrivateTargets: true, timeoutMs: 1000 } });
    cleanups.push(() => env.close());
    const hook = await env.api.call('POST', '/account/webhook', {
      account: env.api.accountKey,
      body: { url: receiver.url, processed: true, delivered: true },
    });
    expect(hook.status).toBe(200);
    const [entry] = await env.send([`ada@${RCPT_DOMAIN}`]);
    await env.waitForStatus(entry!.messageId, 'delivered');
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(2);
    await expect
      .poll(
        async () =>
          sample((await scrape(env.api.mailplane)).text, 'mailplane_webhook_deliveries_total{result="delivered"}'),
        { timeout: 10_000 },
      )
      .toBe(2);

    // The sending domain's records are served by the test DNS: a check verifies it.
    const checked = await contextOf(env.api.mailplane).domainVerifier.verify(
      env.sender.subAccount.id,
      env.sender.domain.id,
    );
    expect(checked.verified).toBe(true);
    expect(
      sample((await scrape(env.api.mailplane)).text, 'mailplane_dns_checks_total{result="verified"}'),
    ).toBeGreaterThanOrEqual(1);
  });

  it('counts opens, clicks, unsubscribes and spam complaints, first ones apart from repeats', async () => {
    const env = await startDeliveryEnv(kind);
    cleanups.push(() => env.close());
    const receiver = createBounceReceiver(env.api.mailplane, {
      feedbackAddresses: ['fbl@bounces.mailplane.test'],
    });
    const { port } = await receiver.listen(0, '127.0.0.1');
    cleanups.push(() => receiver.close());
    const html =
      '<html><body><a href="https://shop.example/p">Buy</a> <a href="{{unsubscribe}}">unsubscribe</a></body></html>';
    const [entry] = await env.send([`ada@${RCPT_DOMAIN}`], { htmlBody: html, trackOpens: true, trackClicks: true });
    await env.waitForStatus(entry!.messageId, 'delivered');
    const mail = await simpleParser(env.sink.received.find((m) => m.rcptTo.includes(`ada@${RCPT_DOMAIN}`))!.raw);
    const urls = [...String(mail.html).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    const [click, unsubscribe] = urls.filter((u) => u.includes('/t/click/') || u.includes('/t/unsubscribe/'));
    const pixel = urls.find((u) => u.includes('/t/open/'))!;
    const follow = (
      url: string,
      method = 'GET',
      userAgent = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
    ) => {
      const parsed = new URL(url);
      return env.api.mailplane.handleLinks({
        method,
        path: parsed.pathname.replace(/^\/t/, ''),
        headers: { 'user-agent': userAgent },
        query: parsed.searchParams,
      });
    };

    expect((await follow(pixel)).status).toBe(200);
    expect(
      (
        await follow(
          pixel,
          'GET',
          'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)',
        )
      ).status,
    ).toBe(200);
    expect((await follow(pixel)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await follow(click!)).status).toBe(302);
    for (let i = 0; i < 2; i++) expect((await follow(unsubscribe!)).status).toBe(200);
    const submit = () =>
      nodemailer.createTransport({ host: '127.0.0.1', port, ignoreTLS: true }).sendMail({
        envelope: { from: 'MAILER-DAEMON@mx.rcpt.test', to: ['fbl@bounces.mailplane.test'] },
        raw: arf('fbl@bounces.mailplane.test', `<${entry!.messageId}@sender.test>`),
      });
    for (let i = 0; i < 2; i++) expect((await submit()).response).toMatch(/^250 /);

    const { text } = await scrape(env.api.mailplane);
    expect(sample(text, 'mailplane_opens_total{unique="true",proxy="none"}')).toBe(1);
    expect(sample(text, 'mailplane_opens_total{unique="false",proxy="GoogleImageProxy"}')).toBe(1);
    expect(sample(text, 'mailplane_opens_total{unique="false",proxy="none"}')).toBe(1);
    expect(sample(text, 'mailplane_clicks_total{unique="true"}')).toBe(1);
    expect(sample(text, 'mailplane_clicks_total{unique="false"}')).toBe(1);
    expect(sample(text, 'mailplane_unsubscribes_total{unique="true"}')).toBe(1);
    expect(sample(text, 'mailplane_unsubscribes_total{unique="false"}')).toBe(1);
    expect(sample(text, 'mailplane_spam_complaints_total{unique="true"}')).toBe(1);
    expect(sample(text, 'mailplane_spam_complaints_total{unique="false"}')).toBe(1);
    expect(text).not.toContain(RCPT_DOMAIN);
    expect(text).not.toContain(entry!.messageId);
  });

  it('reports the depth and the oldest due age of a queue that does not run', async () => {
    const api = await createTestApi(kind, { clock: { now: () => Date.UTC(2026, 4, 1, 12) } });
    cleanups.push(() => api.close());
    // Queued 90 s before now and 1 h ahead; no runner is started, so both stay.
    await contextOf(api.mailplane).store.jobs.enqueue([
      { kind: 'domain-check', payload: { subAccountId: 1, domainId: 1 }, runAt: Date.UTC(2026, 4, 1, 12) - 90_000 },
      { kind: 'domain-check', payload: { subAccountId: 1, domainId: 2 }, runAt: Date.UTC(2026, 4, 1, 13) },
    ]);
    const { text } = await scrape(api.mailplane);
    expect(sample(text, 'mailplane_job_queue_depth{kind="domain-check"}')).toBe(2);
    expect(sample(text, 'mailplane_job_oldest_due_age_seconds{kind="domain-check"}')).toBe(90);
    expect(sample(text, 'mailplane_job_queue_depth{kind="webhook-retry"}')).toBe(0);
  });

  it('counts unmatched routes under one label and each instance on its own registry', async () => {
    const a = await createTestApi(kind);
    const b = await createTestApi(kind);
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    await a.call('GET', '/no/such/thing/123', { account: a.accountKey });
    expect(
      sample(
        (await scrape(a.mailplane)).text,
        'mailplane_http_requests_total{method="GET",route="unmatched",status="404"}',
      ),
    ).toBe(1);
    expect(
      sample(
        (await scrape(b.mailplane)).text,
        'mailplane_http_requests_total{method="GET",route="unmatched",status="404"}',
      ),
    ).toBe(0);
    // Any method token a bridge passes on is counted under one label, so none can grow the series.
    await a.mailplane.handle({
      method: 'PROPFIND',
      path: '/account/subaccount',
      headers: {},
      query: new URLSearchParams(),
    });
    await a.mailplane.handle({
      method: 'X-ANY-1',
      path: '/account/subaccount',
      headers: {},
      query: new URLSearchParams(),
    });
    const text = (await scrape(a.mailplane)).text;
    expect(sample(text, 'mailplane_http_requests_total{method="OTHER",route="unmatched",status="405"}')).toBe(2);
    expect(text).not.toContain('PROPFIND');
  });

  it('answers 401 without the bearer token when one is set, and the metrics with it', async () => {
    const api = await createTestApi(kind, { metrics: { token: 'scrape-token-123' } });
    cleanups.push(() => api.close());
    for (const authorization of [
      undefined,
      'Bearer wrong',
      'Bearer scrape-token-12',
      'Basic scrape-token-123',
      'Bearer ',
    ]) {
      const denied = await scrape(api.mailplane, authorization);
      expect(denied.status).toBe(401);
      expect(JSON.parse(denied.text)).toMatchObject({ code: 'UNAUTHORIZED' });
      expect(denied.text).not.toContain('mailplane_');
    }
    const allowed = await scrape(api.mailplane, 'Bearer scrape-token-123');
    expect(allowed.status).toBe(200);
    expect(allowed.text).toContain('mailplane_messages_total');
  });
});
