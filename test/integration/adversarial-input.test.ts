/**
 * One tenant's input must not freeze the others: adversarial templates, HTML and reports go
 * through accept (HTTP), delivery (to a real SMTP sink), tracking (the rewritten links and pixel,
 * followed over HTTP), the SMTP relay (nodemailer as the client) and the bounce receiver, while
 * the event loop's delay is measured (`monitorEventLoopDelay`) and a small request runs alongside.
 * At the sizes the code this replaced took seconds (a 1 MB template 6.6 s, `<body` x 40,000 5.6 s, `<a ` x
 * 100,000 8.3 s, a report's `;` x 50,000 2.4 s); each step is now linear (test/unit) and far below the bound.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import { afterEach, describe, expect, it } from 'vitest';
import { createBounceReceiver, createSmtpRelay, type BounceReceiver, type SmtpRelay } from 'mailplane';
import { toNodeHandler } from '../../adapters/http/node/index.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { selfSignedCertificate } from '../support/tls-cert.js';

const tls = selfSignedCertificate();
/**
 * How many times each adversarial pattern repeats. Sized so that the work is tens of milliseconds
 * now (the unit tests show each step linear at the full sizes), while the code this
 * replaced needed from 3.6 s to a minute for each (its time grew with the square of these): the
 * bound below is then about the code, not about a loaded machine's scheduler and garbage collector.
 */
const N = { anchors: 90_000, bodies: 36_000, whitespace: 150_000, semicolons: 60_000, messageIds: 15_000 };
/**
 * The longest pause of the event loop allowed while adversarial input is processed: ten times the
 * pauses measured on a quiet machine (tens of milliseconds), so that a loaded CI machine cannot
 * cross it by chance (it crossed 100 ms there), while quadratic code, seconds at these sizes, does.
 */
const MAX_PAUSE_MS = 1_000;

/**
 * Measures, from `start()` to `stop()`, the event loop's longest pause (`monitorEventLoopDelay` and
 * the longest gap between turns of a 5 ms timer, whichever is longer) and a small request's latency.
 */
function watch(probe: () => Promise<unknown>) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  const latencies: number[] = [];
  const phases: Record<string, number> = {};
  let running = true;
  let probing: Promise<void> = Promise.resolve();
  // A timer of our own besides the histogram: the longest gap between two of its turns.
  let ticker: NodeJS.Timeout | undefined;
  let lastTick = 0;
  let longestGap = 0;
  const tick = () => {
    const now = performance.now();
    longestGap = Math.max(longestGap, now - lastTick - 5);
    lastTick = now;
  };
  return {
    start() {
      histogram.enable();
      lastTick = performance.now();
      ticker = setInterval(tick, 5);
      probing = (async () => {
        while (running) {
          const started = performance.now();
          await probe();
          latencies.push(performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
    },
    /**
     * Stops measuring while the test itself reads what the sink received, once mailplane has
     * nothing left to do (every message delivered): that time is the test's, not mailplane's.
     */
    async aside<T>(work: () => Promise<T>): Promise<T> {
      histogram.disable();
      clearInterval(ticker);
      try {
        return await work();
      } finally {
        histogram.enable();
        lastTick = performance.now();
        ticker = setInterval(tick, 5);
      }
    },
    /** Ends a phase: its longest pause is recorded under `name`. */
    phase(name: string) {
      // The histogram counts from the timer's due time: its max is the longest pause beyond the resolution.
      phases[name] = Math.max(histogram.max / 1e6, longestGap);
      histogram.reset();
      longestGap = 0;
    },
    async stop() {
      running = false;
      await probing;
      histogram.disable();
      clearInterval(ticker);
      tick();
      phases.tracking = Math.max(histogram.max / 1e6, longestGap);
      return {
        maxPauseMs: Math.max(...Object.values(phases)),
        phases,
        probes: latencies.length,
        maxLatencyMs: Math.max(...latencies),
      };
    },
  };
}

describe.each(storeKinds)('adversarial input (%s)', (kind) => {
  let env: DeliveryEnv;
  let server: Server;
  let relay: SmtpRelay;
  let receiver: BounceReceiver;
  let watcher: ReturnType<typeof watch> | undefined;
  afterEach(async () => {
    await watcher?.stop();
    await relay?.close();
    await receiver?.close();
    await new Promise((resolve) => server?.close(resolve));
    await env?.close();
  });

  it('is processed everywhere in linear time, with no pause of the event loop above a second', async () => {
    env = await startDeliveryEnv(kind);
    const api = toNodeHandler(env.api.mailplane.handle, { prefix: '/api/v1' });
    const links = toNodeHandler(env.api.mailplane.handleLinks, { prefix: '/t' });
    server = createServer((req, res) => (req.url?.startsWith('/t/') ? links : api)(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    relay = createSmtpRelay(env.api.mailplane, { tls });
    const relayPort = (await relay.listen(0, '127.0.0.1')).port;
    receiver = createBounceReceiver(env.api.mailplane);
    const receiverPort = (await receiver.listen(0, '127.0.0.1')).port;

    const from = { email: `news@${env.sender.domain.name}` };
    const send = async (body: Record<string, unknown>) => {
      const response = await fetch(`${base}/api/v1/subaccount/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-subaccount-apikey': env.key },
        body: JSON.stringify({ from, subject: 'Hi {{name}}', ...body }),
      });
      return {
        status: response.status,
        body: (await response.json()) as { code?: string; message?: string } & Array<{ messageId: string }>,
      };
    };
    const to = (email: string) => [{ email, customFields: { name: 'Ann' } }];
    const probe = async () => {
      const response = await fetch(`${base}/api/v1/subaccount/domain`, { headers: { 'x-subaccount-apikey': env.key } });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    };
    const auth = env.sender.subAccount.smtpAuths[0]!;
    const relayClient = nodemailer.createTransport({
      host: '127.0.0.1',
      port: relayPort,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
      auth: { user: auth.username, pass: auth.password },
    });
    const bounceClient = nodemailer.createTransport({ host: '127.0.0.1', port: receiverPort, ignoreTLS: true });
    const bounce = (to: string, raw: string) =>
      bounceClient.sendMail({ envelope: { from: 'MAILER-DAEMON@mx.rcpt.test', to: [to] }, raw }).catch(() => undefined); // refused or taken: answered either way

    // Warm up every path with ordinary input first: the window measures what adversarial input
    // costs, not the compiler's first run of each function.
    const warm = await send({
      to: to(`warm@${RCPT_DOMAIN}`),
      preText: 'p',
      htmlBody: '<body><a href="https://x.example/">{{name}}</a></body>',
      trackOpens: true,
      trackClicks: true,
    });
    const warmRelay = await relayClient.sendMail({
      from: `news@${env.sender.domain.name}`,
      to: `warm-relay@${RCPT_DOMAIN}`,
      subject: 'w',
      text: 't',
      html: '<body><a href="https://x.example/">x</a></body>',
    });
    await bounce(
      `b+${warm.body[0]!.messageId}@x.example`,
      'From: MAILER-DAEMON@mx.rcpt.test\r\n\r\nAction: delayed\r\n',
    );
    await env.waitForStatus(warm.body[0]!.messageId, 'delivered');
    await env.waitForStatus(/as (\S+)$/.exec(warmRelay.response)![1]!, 'delivered');

    /** One pass of every adversarial input through every listener, measured; `r` keeps each pass's templates and recipients apart. */
    const round = async (r: number) => {
      // Composed by the client before the window opens: the client's work is not mailplane's.
      const relayedRaw = await new MailComposer({
        from: `"${'\u0001'.repeat(500)}News" <news@${env.sender.domain.name}>`,
        to: `relay${r}@${RCPT_DOMAIN}`,
        subject: 'Relayed',
        text: 'text',
        html: `<body><a href="https://relay.example/">x</a>${'<a '.repeat(N.anchors)}${'<body'.repeat(N.bodies)}`,
        headers: { 'X-Mailplane-Track': 'opens, clicks' },
      })
        .compile()
        .build();
      const w = watch(probe);
      watcher = w;
      w.start();

      // Accept: refused at once when over the limits, and accepted in linear time when under them.
      const huge = await send({ to: to(`a@${RCPT_DOMAIN}`), htmlBody: `${'{{a}}'.repeat(200_000)}${r}` });
      expect(huge).toMatchObject({ status: 422, body: { code: 'TEMPLATE_TOO_LARGE' } });
      expect(huge.body.message).toContain('a template may have at most 524288');
      const many = await send({ to: to(`a@${RCPT_DOMAIN}`), htmlBody: `${'{{a}}'.repeat(5_001)}${r}` });
      expect(many).toMatchObject({ status: 422, body: { code: 'TEMPLATE_TOO_COMPLEX' } });
      const nested = await send({
        to: to(`a@${RCPT_DOMAIN}`),
        htmlBody: `{{#each this}}{{#each @root}}${r}{{/each}}{{/each}}`,
      });
      expect(nested).toMatchObject({ status: 422, body: { code: 'TEMPLATE_TOO_COMPLEX' } });
      const amplified = await send({
        to: [{ email: `a@${RCPT_DOMAIN}`, customFields: { a: 'x'.repeat(10_000) } }],
        htmlBody: `${'{{a}}'.repeat(500)}${r}`,
      });
      expect(amplified).toMatchObject({ status: 422, body: { code: 'TEMPLATE_TOO_LARGE' } });
      const whitespace = await send({
        to: to(`ws${r}@${RCPT_DOMAIN}`),
        textBody: `${' '.repeat(N.whitespace)}${r}{{~name}}${'\n'.repeat(N.whitespace)}x{{#if name}}\n{{/if}}`,
      });
      expect(whitespace.status).toBe(200);
      w.phase('accept');

      // Delivery and tracking: the preheader after `<body` repeated, links among `<a ` repeated.
      const bodies = await send({
        to: to(`body${r}@${RCPT_DOMAIN}`),
        preText: 'preview',
        htmlBody: `${'<body'.repeat(N.bodies)}>{{name}}${r}`,
        trackOpens: true,
      });
      const anchors = await send({
        to: to(`anchors${r}@${RCPT_DOMAIN}`),
        htmlBody: `<body><a href="https://shop.example/p?a=1&amp;b=2">{{name}}</a>${'<a '.repeat(N.anchors)}${r}</body>`,
        trackOpens: true,
        trackClicks: true,
      });
      expect([bodies.status, anchors.status]).toEqual([200, 200]);
      w.phase('send');

      // The relay: a message whose HTML is `<a ` and `<body` repeated, tracked.
      const relayed = await relayClient.sendMail({
        envelope: { from: `news@${env.sender.domain.name}`, to: [`relay${r}@${RCPT_DOMAIN}`] },
        raw: relayedRaw,
      });
      const relayedId = /as (\S+)$/.exec(relayed.response)![1]!;
      w.phase('relay');

      // The bounce receiver: a report whose fields and quoted text backtracked.
      const report = [
        'From: MAILER-DAEMON@mx.rcpt.test',
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B"',
        '',
        '--B',
        'Content-Type: message/delivery-status',
        '',
        'Action: failed',
        `Final-Recipient: ${';'.repeat(N.semicolons)}`,
        '--B',
        'Content-Type: text/rfc822-headers',
        '',
        `<0123abcd-0000-4000-8000-000000000000@x`.repeat(N.messageIds),
        '--B--',
        '',
      ].join('\r\n');
      await bounce(`b+${anchors.body[0]!.messageId}@x.example`, report);
      w.phase('bounce');

      for (const id of [
        bodies.body[0]!.messageId,
        anchors.body[0]!.messageId,
        relayedId,
        whitespace.body[0]!.messageId,
      ]) {
        await env.waitForStatus(id, 'delivered');
      }
      w.phase('delivery');

      // Tracking: the rewritten link and the pixel work when followed over HTTP.
      const htmlOf = (to: string) =>
        w.aside(async () => {
          const received = env.sink.received.find((m) => m.rcptTo.includes(to))!;
          return String(
            (await simpleParser(received.raw, { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true }))
              .html,
          );
        });
      const html = await htmlOf(`anchors${r}@${RCPT_DOMAIN}`);
      expect(html.length).toBeGreaterThan(3 * N.anchors);
      const click = new URL(/<a href="([^"]+)">Ann<\/a>/.exec(html)![1]!.replace(/&amp;/g, '&'));
      const pixel = new URL(/<img src="([^"]+)"/.exec(html)![1]!);
      const followed = await fetch(`${base}${click.pathname}${click.search}`, { redirect: 'manual' });
      expect(followed.status).toBe(302);
      expect(followed.headers.get('location')).toBe('https://shop.example/p?a=1&b=2');
      expect((await fetch(`${base}${pixel.pathname}`)).status).toBe(200);
      const withPreheader = await htmlOf(`body${r}@${RCPT_DOMAIN}`);
      // `<body<body…>` is one tag named `body<body…` (a tag name runs to a space, / or >), not a body:
      // the preheader goes first, as for a fragment.
      expect(withPreheader).toMatch(/^<div style="display:none[^"]*">preview<\/div><body<body<body/);
      expect(withPreheader).toMatch(new RegExp(`>Ann${r}<img src="[^"]+/open/[^"]+"[^>]*/>$`));

      const measured = await w.stop();
      watcher = undefined;
      const phases = Object.entries(measured.phases)
        .map(([name, ms]) => `${name} ${ms.toFixed(1)}`)
        .join(', ');
      console.info(
        `[${kind}] adversarial input, pass ${r}: longest event-loop pause ${measured.maxPauseMs.toFixed(1)} ms (${phases}); ${measured.probes} concurrent requests, slowest ${measured.maxLatencyMs.toFixed(1)} ms`,
      );
      expect(measured.probes).toBeGreaterThan(5);
      return measured;
    };

    // A pause the input causes comes back on every pass; one from the machine (another process
    // on the core, a collection of the test's own garbage) does not: a second pass is run when
    // the first saw a long pause, and the better pass is held to the bound.
    let measured = await round(1);
    if (measured.maxPauseMs >= MAX_PAUSE_MS) {
      const again = await round(2);
      if (again.maxPauseMs < measured.maxPauseMs) measured = again;
    }
    expect(measured.maxPauseMs).toBeLessThan(MAX_PAUSE_MS);
    // The probe's time includes the database and the socket on a shared machine, hence the margin.
    expect(measured.maxLatencyMs).toBeLessThan(5 * MAX_PAUSE_MS);
  }, 90_000);
});
