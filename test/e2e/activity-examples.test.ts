/**
 * "What happened to the mail I sent to X?", asked of the example servers as `npm start` runs them
 * (sandbox mode: a real DNS server and mail catcher on loopback), on SQLite and on PostgreSQL
 * (`MAILPLANE_DATABASE_URL`), through Express and Koa: a message is sent and delivered, then found
 * by its recipient in the message and event lists, exported as CSV and NDJSON, counted in
 * `/metrics`, and each request written as a JSON access line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl, storeKinds } from '../support/databases.js';
import { startExample, type ExampleServer } from '../support/example-server.js';

const POLL = { timeout: 20_000, interval: 100 };
const cases = storeKinds.flatMap((kind) => (['express', 'koa'] as const).map((name) => [name, kind] as const));

describe.each(cases)('activity through the %s example on %s', (name, kind) => {
  let server: ExampleServer;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await freshDatabaseUrl(kind);
    drop = database.drop;
    server = await startExample(name, {
      MAILPLANE_DATABASE_URL: database.url,
      MAILPLANE_METRICS: '1',
      MAILPLANE_LOG_LEVEL: 'info',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await drop?.();
  });

  const call = async (path: string, key: Record<string, string>, body?: unknown) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', ...key },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
  };
  const json = <T>(answer: { text: string }) => JSON.parse(answer.text) as T;

  it('finds a delivered message by its recipient, lists its events, exports both and counts it', async () => {
    const account = { 'x-account-apikey': server.accountKey };
    const created = await call('/account/subaccount', account, { name: 'Acme' });
    expect(created.status, created.text).toBe(201);
    const sub = { 'x-subaccount-apikey': json<{ apiKey: string }>(created).apiKey };
    const domain = json<{ id: number }>(await call('/subaccount/domain', sub, { name: 'acme.test' }));
    expect(json<{ verified: boolean }>(await call(`/subaccount/domain/${domain.id}/verify`, sub, {})).verified).toBe(
      true,
    );
    const sent = await call('/subaccount/email', sub, {
      from: { email: 'hello@acme.test', name: 'Acme' },
      to: [{ email: 'ada@example.com', name: 'Ada' }],
      subject: 'Welcome',
      textBody: 'Hello Ada',
      groups: ['welcome'],
    });
    expect(sent.status, sent.text).toBe(200);
    const messageId = json<Array<{ messageId: string }>>(sent)[0]!.messageId;

    // The recipient, in another case, finds it; its status moves to delivered once the catcher has it.
    type Page<T> = { items: T[]; nextCursor: string | null };
    const byRecipient = () =>
      call('/account/message?recipient=ADA@Example.com', account).then((a) =>
        json<Page<{ messageID: string; status: string }>>(a),
      );
    await expect
      .poll(async () => (await byRecipient()).items.map((m) => [m.messageID, m.status]), POLL)
      .toEqual([[messageId, 'delivered']]);
    expect((await byRecipient()).nextCursor).toBeNull();
    // The sub-account's own event list, newest first: Delivered (2) after Processed (0).
    const events = json<Page<{ type: number; messageID: string }>>(
      await call('/subaccount/event?recipient=ada@example.com', sub),
    );
    expect(events.items.map((e) => [e.type, e.messageID])).toEqual([
      [2, messageId],
      [0, messageId],
    ]);
    // Another recipient has nothing.
    expect(json<Page<unknown>>(await call('/account/message?recipient=bob@example.com', account)).items).toEqual([]);

    const csv = await call('/account/message/export?format=csv&group=welcome', account);
    expect(csv.status).toBe(200);
    expect(csv.type).toContain('text/csv');
    const rows = csv.text.trimEnd().split('\r\n');
    expect(rows[0]).toBe('messageID,submittedAt,subAccountID,status,from,to,subject,groups,attempt,ipPool');
    expect(rows.slice(1).map((row) => row.split(',').slice(0, 1).concat(row.split(',').slice(3, 6)))).toEqual([
      [messageId, 'delivered', 'hello@acme.test', 'ada@example.com'],
    ]);
    const ndjson = await call(`/subaccount/event/export?messageId=${messageId}`, sub);
    expect(ndjson.type).toContain('application/x-ndjson');
    expect(
      ndjson.text
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { type: number }).type),
    ).toEqual([2, 0]);

    const metrics = await fetch(`${new URL(server.baseUrl).origin}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^mailplane_messages_total\{outcome="accepted"\} 1$/m);
    expect(metrics).toMatch(/^mailplane_messages_total\{outcome="delivered"\} 1$/m);
    expect(metrics).toMatch(
      /^mailplane_http_requests_total\{method="GET",route="\/account\/message\/export",status="200"\} 1$/m,
    );
    // One JSON access line per request, by route pattern, with no key in it.
    const access = server
      .output()
      .split('\n')
      .filter((line) => line.includes('"message":"http request"'))
      .map((line) => JSON.parse(line) as { route: string; status: number });
    expect(access).toContainEqual(expect.objectContaining({ route: '/subaccount/event/export', status: 200 }));
    expect(server.output()).not.toContain(sub['x-subaccount-apikey']);
  });
});
