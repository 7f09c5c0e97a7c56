/**
 * Requests that once stopped an example server, sent to the real Express and Koa examples (their
 * own processes, SQLite) over raw sockets: request targets that are no URL, absolute-form targets,
 * and a click link mailplane itself wrote for `<a href="https://example.org/€uro">`. Each gets an
 * answer, and the process keeps serving.
 */
import { defaultDomainRecordsConfig } from 'mailplane';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startExample, type ExampleServer } from '../support/example-server.js';
import { rawGet } from '../support/raw-http.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Json = any;

describe.each(['express', 'koa'] as const)('the %s example under faulty requests', (name) => {
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let server: ExampleServer;
  let port: number;
  let subKey: Record<string, string>;

  const ok = async (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Json> => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as Json;
    expect([200, 201], JSON.stringify(json)).toContain(response.status);
    return json;
  };
  /** The example still answers an ordinary API request. */
  const alive = async () => {
    const answer = await rawGet(port, '/api/v1/account/subaccount');
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'MISSING_API_KEY' });
  };

  beforeAll(async () => {
    dns = await startTestDnsServer();
    sink = await startSmtpSink();
    dns.txt(
      defaultDomainRecordsConfig.returnPathTarget,
      `v=spf1 include:${defaultDomainRecordsConfig.spfInclude} ~all`,
    );
    dns.set('rcpt.test', 'MX', [{ exchange: 'mx.rcpt.test', preference: 10 }]);
    dns.set('mx.rcpt.test', 'A', ['127.0.0.1']);
    server = await startExample(name, { MAILPLANE_DNS_SERVERS: dns.address, MAILPLANE_MX_PORT: String(sink.port) });
    port = Number(new URL(server.baseUrl).port);
    const sub = await ok('POST', '/account/subaccount', { 'x-account-apikey': server.accountKey }, { name: 'Faults' });
    subKey = { 'x-subaccount-apikey': sub.apiKey };
    const domain = await ok('POST', '/subaccount/domain', subKey, { name: 'faults.test' });
    dns.txt(domain.dkim.host, domain.dkim.textValue);
    dns.cname(domain.returnPath.host, domain.returnPath.textValue);
    dns.cname(domain.track.host, domain.track.textValue);
    dns.txt(domain.dmarc.host, domain.dmarc.textValue);
    expect((await ok('POST', `/subaccount/domain/${domain.id}/verify`, subKey)).verified).toBe(true);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await sink?.close();
    await dns?.close();
  });

  it('answers GET http://[/api/v1/account/subaccount with an error and keeps serving', async () => {
    const answer = await rawGet(port, 'http://[/api/v1/account/subaccount');
    // Koa reaches the bridge (400 JSON); Express's router refuses the target before any middleware (404)
    expect(answer.status).toBe(name === 'koa' ? 400 : 404);
    if (name === 'koa') expect(JSON.parse(answer.body)).toMatchObject({ code: 'BAD_REQUEST_TARGET' });
    const port99999 = await rawGet(port, 'http://a:99999/api/v1/account/subaccount');
    expect(port99999.status).toBe(400);
    expect(JSON.parse(port99999.body)).toMatchObject({ code: 'BAD_REQUEST_TARGET' });
    await alive();
  });

  it('serves an absolute-form target by its path', async () => {
    const answer = await rawGet(port, 'http://mail.example.com/api/v1/account/subaccount');
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'MISSING_API_KEY' });
  });

  it('redirects a tracked link to https://example.org/€uro with the percent-encoded URL, and keeps serving', async () => {
    const [entry] = await ok('POST', '/subaccount/email', subKey, {
      from: { email: 'news@faults.test' },
      to: [{ email: 'ann@rcpt.test' }],
      subject: 'Euro',
      htmlBody: '<html><body><a href="https://example.org/€uro?q=ä#ö">Euro</a></body></html>',
      trackClicks: true,
    });
    await vi.waitFor(() => expect(sink.received.find((m) => m.mailFrom.includes(entry.messageId))).toBeDefined(), {
      timeout: 30_000,
      interval: 50,
    });
    const mail = await simpleParser(sink.received.find((m) => m.mailFrom.includes(entry.messageId))!.raw);
    const link = new URL(/href="([^"]+)"/.exec(String(mail.html))![1]!.replace(/&amp;/g, '&'));
    expect(link.searchParams.get('url')).toBe('https://example.org/€uro?q=ä#ö');
    const answer = await rawGet(port, `${link.pathname}${link.search}`);
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe('https://example.org/%E2%82%ACuro?q=%C3%A4#%C3%B6');
    await vi.waitFor(
      async () => {
        const view = await ok('GET', `/account/message/${entry.messageId}`, { 'x-account-apikey': server.accountKey });
        expect(view.events.find((e: Json) => e.type === 6)?.eventMetadata?.clickedURL).toBe(
          'https://example.org/€uro?q=ä#ö',
        );
      },
      { timeout: 10_000, interval: 50 },
    );
    await alive();
  }, 60_000);
});
