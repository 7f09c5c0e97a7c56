/**
 * Open and click tracking end to end: a tracked send delivered to a real SMTP sink, its HTML read
 * back with mailparser, the pixel and links followed through `handleLinks`, and what that records
 * (events, statistics, webhooks to a real HTTP receiver).
 */
import { simpleParser } from 'mailparser';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const HTML = [
  '<html><body><p>Hi {{first}}</p>',
  '<a class="cta" href="https://shop.example/p?a=1&amp;b=2">Buy</a>',
  "<a href='http://plain.example/x'>plain</a>",
  '<a href="mailto:help@sender.test">mail us</a> <a href="#top">top</a>',
  '<a href="{{unsubscribe}}">unsubscribe</a>',
  '</body></html>',
].join('\n');

describe.each(storeKinds)('open and click tracking (%s)', (kind) => {
  let env: DeliveryEnv;
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    await env?.close();
    await receiver?.close();
  });

  /** Sends one tracked message to `to` and answers its id and the HTML the recipient got. */
  async function deliveredHtml(
    to: string,
    extra: Record<string, unknown> = {},
  ): Promise<{ messageId: string; html: string; text: string }> {
    const [entry] = await env.send([to], {
      htmlBody: HTML,
      textBody: 'Hi {{first}}: https://shop.example/p',
      trackOpens: true,
      trackClicks: true,
      to: [{ email: to, customFields: { first: 'Ann' } }],
      ...extra,
    });
    await env.waitForStatus(entry!.messageId, 'delivered');
    const got = env.sink.received.find((m) => m.rcptTo.includes(to))!;
    expect((await env.verifyDkim(got.raw)).status).toBe('pass');
    const mail = await simpleParser(got.raw);
    return { messageId: entry!.messageId, html: String(mail.html), text: String(mail.text) };
  }

  /** Follows a tracking URL through the link handler, as the reader's client would. */
  const follow = (
    url: string,
    method = 'GET',
    userAgent = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.71 Safari/537.36',
  ) => {
    const parsed = new URL(url);
    return env.api.mailplane.handleLinks({
      method,
      path: parsed.pathname.replace(/^\/t/, ''),
      headers: { 'user-agent': userAgent },
      query: parsed.searchParams,
    });
  };
  const view = async (messageId: string) =>
    (await env.api.call('GET', `/account/message/${messageId}`, { account: env.api.accountKey })).body;
  const stats = async () =>
    (
      await env.api.call('GET', '/subaccount/stat/aggregate', {
        sub: env.key,
        query: { from: '2026-05-01', to: '2026-05-01' },
      })
    ).body;

  it('adds a pixel and tracked links to the HTML only, leaving mailto, anchors, the unsubscribe link and the text alone', async () => {
    env = await startDeliveryEnv(kind);
    const { messageId, html, text } = await deliveredHtml(`ann@${RCPT_DOMAIN}`);
    expect(html).toContain('<p>Hi Ann</p>');
    expect(html).toMatch(
      new RegExp(
        `<img src="http://127\\.0\\.0\\.1:3000/t/open/o\\.${messageId}\\.[\\w-]+" width="1" height="1" alt="" style="[^"]+" /></body>`,
      ),
    );
    const links = [...html.matchAll(/href=["']([^"']+)["']/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    expect(links).toHaveLength(5);
    expect(new URL(links[0]!).searchParams.get('url')).toBe('https://shop.example/p?a=1&b=2');
    expect(links[0]).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:3000/t/click/c\\.${messageId}\\.`));
    expect(new URL(links[1]!).searchParams.get('url')).toBe('http://plain.example/x');
    expect(links.slice(2, 4)).toEqual(['mailto:help@sender.test', '#top']);
    expect(links[4]).toMatch(/^http:\/\/127\.0\.0\.1:3000\/t\/unsubscribe\//);
    expect(html).toContain('class="cta"');
    expect(text.trim()).toBe('Hi Ann: https://shop.example/p');
  });

  it('records every open with its client, counts the message once, and answers a GIF; HEAD records nothing', async () => {
    env = await startDeliveryEnv(kind);
    const { messageId, html } = await deliveredHtml(`ben@${RCPT_DOMAIN}`);
    const pixel = /<img src="([^"]+)"/.exec(html)![1]!;
    const first = await follow(pixel);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('image/gif');
    expect(first.headers['cache-control']).toContain('no-store');
    expect(
      Buffer.from(first.body, first.bodyEncoding === 'base64' ? 'base64' : 'utf8')
        .subarray(0, 6)
        .toString(),
    ).toBe('GIF89a');
    expect(
      (
        await follow(
          pixel,
          'GET',
          'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)',
        )
      ).status,
    ).toBe(200);
    expect((await follow(pixel, 'HEAD')).status).toBe(200);
    const events = (await view(messageId)).events.filter((e: { type: number }) => e.type === 5);
    expect(events).toHaveLength(2);
    expect(events[0].eventMetadata).toMatchObject({ userAgent: { Family: 'Chrome', Major: '120' }, unique: true });
    expect(events[1].eventMetadata).toMatchObject({ userAgent: { Family: 'GoogleImageProxy' }, unique: false });
    expect((await stats()).opened).toBe(1);
  });

  it('flags an open by Apple Mail Privacy Protection as a proxy open and still counts it', async () => {
    env = await startDeliveryEnv(kind);
    const { messageId, html } = await deliveredHtml(`ben@${RCPT_DOMAIN}`);
    const pixel = /<img src="([^"]+)"/.exec(html)![1]!;
    expect((await follow(pixel, 'GET', 'Mozilla/5.0')).status).toBe(200);
    const events = (await view(messageId)).events.filter((e: { type: number }) => e.type === 5);
    expect(events).toHaveLength(1);
    expect(events[0].eventMetadata).toMatchObject({
      userAgent: { Family: 'AppleMailPrivacyProtection' },
      proxy: 'AppleMailPrivacyProtection',
      unique: true,
    });
    expect((await stats()).opened).toBe(1);
  });

  it('redirects a click to its exact target and records it; a changed target or a forged token is 404 and records nothing', async () => {
    env = await startDeliveryEnv(kind);
    const { messageId, html } = await deliveredHtml(`cy@${RCPT_DOMAIN}`);
    const link = /href="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');
    const response = await follow(link);
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('https://shop.example/p?a=1&b=2');
    const changed = new URL(link);
    changed.searchParams.set('url', 'https://evil.example/');
    const forged = link.replace(/\.[\w-]+\?/, '.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA?');
    const openToken = link.replace('/click/c.', '/click/o.');
    const lineBreak = `${link.replace(/\?.*/, '')}?url=${encodeURIComponent('https://shop.example/\r\nSet-Cookie: x=1')}`;
    for (const bad of [changed.toString(), forged, openToken, link.replace(/\?.*/, ''), lineBreak])
      expect((await follow(bad)).status).toBe(404);
    const clicks = (await view(messageId)).events.filter((e: { type: number }) => e.type === 6);
    expect(clicks).toHaveLength(1);
    expect(clicks[0].eventMetadata).toMatchObject({ clickedURL: 'https://shop.example/p?a=1&b=2', unique: true });
    expect((await stats()).clicked).toBe(1);
  });

  it('gives each recipient of one send their own links, and sends the first open to uniqueOpen webhooks only once', async () => {
    receiver = await startWebhookReceiver();
    env = await startDeliveryEnv(kind, {}, { webhooks: { allowPrivateTargets: true } });
    await env.api.call('POST', '/account/webhook', {
      account: env.api.accountKey,
      body: { url: receiver.url, uniqueOpen: true },
    });
    const a = await deliveredHtml(`dee@${RCPT_DOMAIN}`);
    const b = await deliveredHtml(`eve@${RCPT_DOMAIN}`);
    const pixelOf = (html: string) => /<img src="([^"]+)"/.exec(html)![1]!;
    expect(pixelOf(a.html)).not.toBe(pixelOf(b.html));
    await follow(pixelOf(a.html));
    await follow(pixelOf(a.html));
    await vi.waitFor(() => expect(receiver!.received).toHaveLength(1), { timeout: 10_000, interval: 20 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.json.event).toMatchObject({
      type: 5,
      messageID: a.messageId,
      eventMetadata: { unique: true },
    });
  });
});
