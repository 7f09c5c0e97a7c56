import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Koa from 'koa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toExpress } from '../../adapters/http/express/index.js';
import { toKoa } from '../../adapters/http/koa/index.js';
import { toNodeHandler } from '../../adapters/http/node/index.js';
import { useTestApi, type TestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';

const bridges = {
  node: (api: TestApi) => toNodeHandler(api.mailplane.handle, { prefix: '/api/v1' }),
  express: (api: TestApi) => express().use('/api/v1', toExpress(api.mailplane.handle)),
  koa: (api: TestApi) => new Koa().use(toKoa(api.mailplane.handle, { prefix: '/api/v1' })).callback(),
};

describe.each(storeKinds)('activity exports on %s', (kind) => {
  const api = useTestApi(kind);
  let shop: Sender;
  let blog: Sender;
  const servers: Server[] = [];

  beforeEach(async () => {
    shop = await createSender(api, 'shop', 'shop.example.com');
    blog = await createSender(api, 'blog', 'blog.example.com');
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  async function serve(bridge: keyof typeof bridges): Promise<string> {
    const server = createServer(bridges[bridge](api) as Parameters<typeof createServer>[1]);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  }

  it.each(Object.keys(bridges) as Array<keyof typeof bridges>)(
    'streams every matching message as NDJSON through the %s bridge, past one store page',
    async (bridge) => {
      const sent = new Set<string>();
      for (let i = 0; i < 3; i += 1) {
        const to = Array.from({ length: 250 }, (_, n) => `r${i}-${n}@example.org`);
        const result = await api.call('POST', '/subaccount/email', {
          sub: shop.subAccount.apiKey,
          body: sendBody('news@shop.example.com', to),
        });
        for (const entry of result.body) sent.add(entry.messageId);
      }
      await api.call('POST', '/subaccount/email', {
        sub: blog.subAccount.apiKey,
        body: sendBody('news@blog.example.com', ['other@example.org']),
      });
      const base = await serve(bridge);
      const response = await fetch(`${base}/subaccount/message/export`, {
        headers: { 'x-subaccount-apikey': shop.subAccount.apiKey },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
      const lines = (await response.text()).split('\n');
      expect(lines.pop()).toBe('');
      const items = lines.map(
        (line) => JSON.parse(line) as { messageID: string; subAccountID: number; status: string },
      );
      expect(items).toHaveLength(750);
      expect(new Set(items.map((m) => m.messageID))).toEqual(sent);
      expect(items.every((m) => m.subAccountID === shop.subAccount.id && m.status === 'queued')).toBe(true);
    },
  );

  it('exports events as CSV with a header, quoting and formula neutralised, filtered like the lists', async () => {
    const body = {
      ...sendBody('news@shop.example.com', ['=cmd@example.org', 'plain@example.org']),
      subject: 'Hi, "you"',
    };
    const sent = await api.call('POST', '/subaccount/email', { sub: shop.subAccount.apiKey, body });
    await api.call('POST', '/subaccount/email', {
      sub: blog.subAccount.apiKey,
      body: sendBody('news@blog.example.com', ['other@example.org']),
    });
    const base = await serve('node');
    const url = `${base}/account/event/export?format=csv&type=0&subAccountId=${shop.subAccount.id}`;
    const response = await fetch(url, { headers: { 'x-account-apikey': api.accountKey } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="events.csv"');
    const rows = (await response.text()).split('\r\n');
    expect(rows.pop()).toBe('');
    expect(rows[0]).toBe('eventID,type,submittedAt,messageID,subAccountID,from,to,smtpCode,smtpDescription');
    expect(rows).toHaveLength(3);
    const byMessage = new Map(rows.slice(1).map((row) => [row.split(',')[3], row.split(',')]));
    expect(byMessage.get(sent.body[0].messageId)?.[6]).toBe("'=cmd@example.org");
    expect(byMessage.get(sent.body[1].messageId)?.slice(4, 7)).toEqual([
      String(shop.subAccount.id),
      'news@shop.example.com',
      'plain@example.org',
    ]);

    const messages = await fetch(`${base}/account/message/export?format=csv&recipient=PLAIN@example.org`, {
      headers: { 'x-account-apikey': api.accountKey },
    });
    const text = await messages.text();
    expect(text.split('\r\n')[1]).toContain('"Hi, ""you"""');
    expect(text.split('\r\n')).toHaveLength(3);

    const bad = await fetch(`${base}/account/message/export?format=xml`, {
      headers: { 'x-account-apikey': api.accountKey },
    });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { code: string }).code).toMatch(/^[A-Z_]+$/);
    const unauthorised = await fetch(`${base}/subaccount/event/export`, {
      headers: { 'x-account-apikey': api.accountKey },
    });
    expect(unauthorised.status).toBe(401);
  });
});
