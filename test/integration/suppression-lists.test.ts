/**
 * Suppression lists at scale (docs/suppressions.md) through the real HTTP API on each database:
 * the CSV import and export over a real socket and each bridge, domain-wide entries, expiry, the
 * account's list, all as the accept path sees them.
 */
import { manualClock } from 'mailplane';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTestApi } from '../support/api.js';
import { BRIDGES, startBridgeServer, type BridgeServer } from '../support/bridge-server.js';
import { storeKinds } from '../support/databases.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';

const NOW = Date.UTC(2026, 0, 10, 12, 0, 0);

describe.each(storeKinds)('suppression lists on %s', (kind) => {
  let clock: ReturnType<typeof manualClock>;
  const api = useTestApi(kind, () => {
    clock = manualClock(NOW);
    return { clock };
  });
  let sender: Sender;
  let server: BridgeServer | undefined;
  beforeEach(async () => {
    sender = await createSender(api, 'shop', 'shop.example.com');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** The recipients of a send that were dropped as suppressed. */
  async function suppressedAt(to: string[]): Promise<string[]> {
    const sent = await api.call('POST', '/subaccount/email', {
      sub: sender.subAccount.apiKey,
      body: sendBody('news@shop.example.com', to),
    });
    expect(sent.status, sent.text).toBe(200);
    const entries = sent.body as Array<{ to: string; errors?: Record<string, string> }>;
    return entries.filter((entry) => JSON.stringify(entry).includes('SUPPRESSED')).map((entry) => entry.to);
  }

  async function http(path: string, init: RequestInit & { key?: string; account?: boolean } = {}): Promise<Response> {
    server ??= await startBridgeServer('node', api);
    const headers = new Headers(init.headers);
    headers.set(init.account ? 'x-account-apikey' : 'x-subaccount-apikey', init.key ?? sender.subAccount.apiKey);
    return fetch(`http://127.0.0.1:${server.port}/api/v1${path}`, { ...init, headers });
  }

  it('imports a CSV with bad rows, reporting each by line, and exports what round-trips', async () => {
    const csv = [
      'email,type,expires',
      'Alice@Example.org,hardBounce,',
      'not-an-address,manual,',
      '*@spam.example,spamComplaint,2027-01-01',
      'bob@example.org,sometimes,',
      '"carol@example.org",unsubscribe,2026-02-01T00:00:00Z',
      '"broken@example.org,manual,',
      '',
      'dave@example.org,,2020-01-01',
      'erin@example.org',
    ].join('\r\n');
    const imported = await http('/subaccount/suppression/import', {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: csv,
    });
    expect(imported.status).toBe(200);
    expect(await imported.json()).toEqual({
      rows: 8,
      imported: 4,
      failed: 4,
      errors: [
        { line: 3, code: 'INVALID_EMAIL', message: 'email must contain @' },
        { line: 5, code: 'INVALID_TYPE', message: expect.stringContaining('hardBounce') },
        { line: 7, code: 'CSV_MALFORMED_ROW', message: expect.any(String) },
        { line: 9, code: 'INVALID_EXPIRY', message: 'expires must be in the future' },
      ],
    });
    expect(
      await suppressedAt([
        'alice@example.org',
        'x@spam.example',
        'carol@example.org',
        'erin@example.org',
        'ok@example.org',
      ]),
    ).toEqual(['alice@example.org', 'x@spam.example', 'carol@example.org', 'erin@example.org']);

    const exported = await http('/subaccount/suppression/export');
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const text = await exported.text();
    expect(text.split('\r\n')).toEqual([
      'email,type,expires,created,smtpError',
      // one chunk's new entries take their ids in key order
      '*@spam.example,spamComplaint,2027-01-01T00:00:00.000Z,2026-01-10T12:00:00.000Z,',
      'Alice@Example.org,hardBounce,,2026-01-10T12:00:00.000Z,',
      'carol@example.org,unsubscribe,2026-02-01T00:00:00.000Z,2026-01-10T12:00:00.000Z,',
      'erin@example.org,manual,,2026-01-10T12:00:00.000Z,',
      '',
    ]);
    // The export imports as it is into another list: the same entries, nothing refused.
    const other = await createSender(api, 'blog', 'blog.example.com');
    const again = await http('/subaccount/suppression/import', {
      method: 'POST',
      key: other.subAccount.apiKey,
      headers: { 'content-type': 'text/csv; charset=utf-8' },
      body: text,
    });
    expect(await again.json()).toEqual({ rows: 4, imported: 4, failed: 0, errors: [] });
    const copy = await http('/subaccount/suppression/export', { key: other.subAccount.apiKey });
    expect((await copy.text()).split('\r\n').map((line) => line.split(',').slice(0, 3).join(','))).toEqual(
      text.split('\r\n').map((line) => line.split(',').slice(0, 3).join(',')),
    );
  });

  it('streams a 50,000-row import through each bridge and answers the right counts', async () => {
    for (const bridge of BRIDGES) {
      const served = await startBridgeServer(bridge, api);
      try {
        const rows = 50_000;
        const lines = function* () {
          yield 'email,type\n';
          for (let start = 0; start < rows; start += 1000) {
            let chunk = '';
            for (let i = start; i < start + 1000; i++)
              chunk += i === 777 ? 'bad row\n' : `${bridge}${i}@bulk.example,manual\n`;
            yield chunk;
          }
        };
        const encoder = new TextEncoder();
        const source = lines();
        // A body of unknown length, sent chunk by chunk as a client streaming a file would.
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            const next = source.next();
            if (next.done) controller.close();
            else controller.enqueue(encoder.encode(next.value));
          },
        });
        const response = await fetch(`http://127.0.0.1:${served.port}/api/v1/subaccount/suppression/import`, {
          method: 'POST',
          headers: { 'content-type': 'text/csv', 'x-subaccount-apikey': sender.subAccount.apiKey },
          body,
          duplex: 'half',
        } as RequestInit);
        expect(response.status, bridge).toBe(200);
        expect(await response.json()).toEqual({
          rows,
          imported: rows - 1,
          failed: 1,
          errors: [
            {
              line: 779,
              code: 'INVALID_EMAIL',
              message: 'email must not contain spaces, line breaks or control characters',
            },
          ],
        });
        expect(await suppressedAt([`${bridge}0@bulk.example`, `${bridge}49999@bulk.example`])).toHaveLength(2);
      } finally {
        await served.close();
      }
    }
    const exported = await (await http('/subaccount/suppression/export')).text();
    expect(exported.split('\r\n')).toHaveLength(1 + 3 * 49_999 + 1);
  });

  it('refuses another content type and a CSV without its header, storing nothing', async () => {
    const json = await api.call('POST', '/subaccount/suppression/import', {
      sub: sender.subAccount.apiKey,
      body: { manual: [{ email: 'a@example.org' }] },
    });
    expect(json.status).toBe(422);
    expect(json.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    const headless = await http('/subaccount/suppression/import', {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: 'a@example.org,manual\n',
    });
    expect(headless.status).toBe(422);
    expect(await headless.json()).toMatchObject({ code: 'CSV_HEADER_MISSING' });
    const export0 = await (await http('/subaccount/suppression/export')).text();
    expect(export0).toBe('email,type,expires,created,smtpError\r\n');
  });

  it('suppresses a domain with `*@domain`, stops at the expiry, and keeps a create with a bad expiry all-or-nothing', async () => {
    const add = (body: unknown) => api.call('POST', '/subaccount/suppression', { sub: sender.subAccount.apiKey, body });
    const added = await add({
      manual: [{ email: '*@Competitor.example' }, { email: 'temp@example.org', expires: '2026-01-11T12:00:00Z' }],
    });
    expect(added.status, added.text).toBe(200);
    expect(added.text).toContain(`"expires":${BigInt(Date.UTC(2026, 0, 11, 12)) * 1_000_000n}`);
    expect(await suppressedAt(['ceo@competitor.example', 'x@sub.competitor.example', 'temp@example.org'])).toEqual([
      'ceo@competitor.example',
      'temp@example.org',
    ]);
    clock.advance(86_400_000);
    expect(await suppressedAt(['temp@example.org'])).toEqual([]);

    const refused = await add({
      manual: [{ email: 'fine@example.org' }, { email: 'late@example.org', expires: '2026-01-01' }],
      hardBounce: [{ email: '*@' }],
    });
    expect(refused.status).toBe(422);
    const refusedExpiry = await add({
      manual: [{ email: 'fine@example.org' }, { email: 'late@example.org', expires: '2026-01-01' }],
    });
    expect(refusedExpiry.status).toBe(422);
    expect(refusedExpiry.body.message).toContain('manual.1.expires: must be in the future');
    const list = await api.call('GET', '/subaccount/suppression', {
      sub: sender.subAccount.apiKey,
      query: { search: 'fine' },
    });
    expect(list.body).toEqual([]);
  });

  it('keeps an account list that suppresses for every sub-account, with the same shapes', async () => {
    const blog = await createSender(api, 'blog', 'blog.example.com');
    const added = await api.call('POST', '/account/suppression', {
      account: api.accountKey,
      body: { spamComplaint: [{ email: 'angry@example.org' }, { email: '*@trap.example' }] },
    });
    expect(added.status, added.text).toBe(200);
    expect(added.body.map((s: { email: string; reason: number }) => [s.email, s.reason])).toEqual([
      ['angry@example.org', 3],
      ['*@trap.example', 3],
    ]);
    for (const who of [sender, blog]) {
      sender = who;
      expect(await suppressedAt(['Angry@Example.org', 'a@trap.example', 'happy@example.org'])).toEqual([
        'Angry@Example.org',
        'a@trap.example',
      ]);
    }
    // The sub-account's own list is its own; its key cannot reach the account's list.
    expect((await api.call('GET', '/subaccount/suppression', { sub: blog.subAccount.apiKey })).body).toEqual([]);
    expect((await api.call('GET', '/account/suppression', { sub: blog.subAccount.apiKey })).status).toBe(401);
    const exported = await http('/account/suppression/export', { account: true, key: api.accountKey });
    expect(
      (await exported.text())
        .split('\r\n')
        .slice(1, 3)
        .map((line) => line.split(',')[0]),
    ).toEqual(['*@trap.example', 'angry@example.org']);
    const removed = await api.call('DELETE', '/account/suppression', {
      account: api.accountKey,
      body: { suppressions: [{ email: 'ANGRY@example.org' }] },
    });
    expect(removed.body).toEqual({ message: '1 suppression has been deleted successfully' });
    expect(await suppressedAt(['angry@example.org'])).toEqual([]);
  });
});
