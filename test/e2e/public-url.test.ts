/**
 * `PORT=0` (a free port, as the README offers) on the real Express and Koa examples, their own
 * processes in sandbox mode: the links in a delivered message (the unsubscribe link in the body
 * and in `List-Unsubscribe`, the open pixel, the click redirect) point at the port the server
 * actually bound, not at port 0, and following them works.
 */
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startExample, type ExampleServer } from '../support/example-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Json = any;

describe.each(['express', 'koa'] as const)('the %s example started with PORT=0', (name) => {
  let server: ExampleServer;
  beforeAll(async () => {
    server = await startExample(name, { PORT: '0' });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  const call = async (method: string, path: string, key: Record<string, string>, body?: unknown): Promise<Json> => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...key },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as Json;
    expect([200, 201], JSON.stringify(json)).toContain(response.status);
    return json;
  };

  it('writes links to the bound port into the delivered message, and they work', async () => {
    const account = { 'x-account-apikey': server.accountKey };
    const origin = new URL(server.baseUrl).origin;
    expect(new URL(origin).port).not.toMatch(/^0?$/);
    const sub = {
      'x-subaccount-apikey': (await call('POST', '/account/subaccount', account, { name: 'Links' })).apiKey as string,
    };
    const domain = await call('POST', '/subaccount/domain', sub, { name: 'links.test' });
    expect((await call('POST', `/subaccount/domain/${domain.id}/verify`, sub)).verified).toBe(true);
    const [sent] = await call('POST', '/subaccount/email', sub, {
      from: { email: 'news@links.test' },
      to: [{ email: 'ada@example.com' }],
      subject: 'Links',
      htmlBody:
        '<html><body><a href="https://example.org/page">Read</a> <a href="{{unsubscribe}}">Unsubscribe</a></body></html>',
      trackOpens: true,
      trackClicks: true,
    });

    const captured = await vi.waitFor(
      async () => {
        const list = (await call('GET', '/account/sandbox/message?limit=10', account)) as Json[];
        const found = list.find((m) => m.messageId === sent.messageId || m.rcptTo.includes('ada@example.com'));
        expect(found).toBeDefined();
        return found;
      },
      { timeout: 30_000, interval: 100 },
    );
    const raw = (await call('GET', `/account/sandbox/message/${captured.id}`, account)).raw as string;
    const mail = await simpleParser(raw);
    const html = String(mail.html).replace(/&amp;/g, '&');
    const listUnsubscribe = /<([^>]+)>/.exec(
      mail.headerLines.find((line) => line.key === 'list-unsubscribe')?.line ?? '',
    )?.[1];
    const links = [...html.matchAll(/(?:href|src)="([^"]+\/t\/[^"]+)"/g)].map((match) => match[1]!);
    const click = links.find((link) => link.includes('/t/click/'));
    const open = links.find((link) => link.includes('/t/open/'));
    const unsubscribe = links.find((link) => link.includes('/t/unsubscribe/'));
    expect({ click, open, unsubscribe, listUnsubscribe }).toEqual({
      click: expect.any(String),
      open: expect.any(String),
      unsubscribe: expect.any(String),
      listUnsubscribe: expect.any(String),
    });
    for (const link of [...links, listUnsubscribe!]) expect(new URL(link).origin, link).toBe(origin);

    const redirect = await fetch(click!, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('https://example.org/page');
    const pixel = await fetch(open!);
    expect(pixel.status).toBe(200);
    expect(pixel.headers.get('content-type')).toMatch(/^image\/gif/);
    const oneClick = await fetch(listUnsubscribe!, {
      method: 'POST',
      body: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(oneClick.status).toBe(200);
    const page = await fetch(unsubscribe!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('ada@example.com will no longer receive these emails');

    await vi.waitFor(
      async () => {
        const types = ((await call('GET', `/account/message/${sent.messageId}`, account)).events as Json[]).map(
          (event) => event.type,
        );
        expect(types).toEqual(expect.arrayContaining([5, 6, 7]));
      },
      { timeout: 10_000, interval: 100 },
    );
  }, 90_000);
});
