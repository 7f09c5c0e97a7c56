import { beforeEach, describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { renderMessage } from '../../src/sending/render.js';
import { verifyLinkToken } from '../../src/tracking/links.js';
import { useTestApi } from '../support/api.js';
import { expectAuthBattery, expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { schemaErrors } from '../support/openapi.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe.each(storeKinds)('sending email through the API on %s', (kind) => {
  const api = useTestApi(kind);
  let sender: Sender;
  const today = () => new Date().toISOString().slice(0, 10);
  const send = (body: unknown, key = sender.subAccount.apiKey) =>
    api.call('POST', '/subaccount/email/', { sub: key, body });
  const stats = async (key = sender.subAccount.apiKey) =>
    (await api.call('GET', '/subaccount/stat/aggregate', { sub: key, query: { from: today(), to: today() } })).body;

  beforeEach(async () => {
    sender = await createSender(api, 'shop', 'shop.example.com');
  });

  it('answers one entry per recipient, stores the message with its Processed event, counts it, and queues delivery', async () => {
    const result = await send(
      sendBody('news@shop.example.com', ['a@example.org', 'b@example.org'], { groups: ['welcome'] }),
    );
    expect(result.status).toBe(200);
    expect(result.body).toHaveLength(2);
    for (const entry of result.body) {
      expect(schemaErrors('EmailResponse', entry)).toEqual([]);
      expect(entry.messageId).toMatch(UUID);
      expect(entry.errorCode).toBeUndefined();
    }
    expect(result.body.map((e: { to: string }) => e.to)).toEqual(['a@example.org', 'b@example.org']);
    expect(result.text).toMatch(/"submittedAt":\d{19}/);

    const message = await api.call('GET', `/account/message/${result.body[0].messageId}`, { account: api.accountKey });
    expect(message.status).toBe(200);
    expect(schemaErrors('Message', message.body)).toEqual([]);
    expect(message.body).toMatchObject({
      messageID: result.body[0].messageId,
      subject: 'Hello',
      groups: ['welcome'],
      status: 'queued',
    });
    expect(message.body.events.map((e: { type: number }) => e.type)).toEqual([0]);
    for (const event of message.body.events) expect(schemaErrors('Event', event)).toEqual([]);

    expect(await stats()).toMatchObject({ processed: 2, sent: 2, dropped: 0 });
    const group = await api.call('GET', `/account/subaccount/stat/${sender.subAccount.id}/group`, {
      account: api.accountKey,
      query: { from: today(), to: today(), group: 'welcome' },
    });
    expect(group.body).toMatchObject({ processed: 2, sent: 2 });
    const jobs = await contextOf(api.mailplane).store.jobs.countByState('deliver-batch');
    expect(jobs.pending).toBe(1);
  });

  it('drops invalid, suppressed and unverified-domain recipients with their reasons, and counts them', async () => {
    await api.call('POST', '/subaccount/suppression', {
      sub: sender.subAccount.apiKey,
      body: { manual: [{ email: 'Gone@Example.org' }] },
    });
    const result = await send(
      sendBody('news@shop.example.com', [
        'ok@example.org',
        'not-an-address',
        'gone@example.org',
        'x\r\nRCPT TO:<y@z.com>@a.com',
      ]),
    );
    expect(result.body.map((e: { errorCode?: number }) => e.errorCode)).toEqual([undefined, 1, 2, 1]);
    expect(result.body[2].message).toMatch(/^SUPPRESSED: /);
    for (const entry of result.body) expect(schemaErrors('EmailResponse', entry)).toEqual([]);
    expect(await stats()).toMatchObject({ processed: 4, dropped: 3, sent: 1 });

    const dropped = await api.call('GET', `/account/message/${result.body[2].messageId}`, { account: api.accountKey });
    expect(dropped.body.status).toBe('dropped');
    expect(dropped.body.events.map((e: { type: number }) => e.type)).toEqual([0, 1]);

    const unverified = await createSender(api, 'fresh', 'fresh.example.com', false);
    const fromUnverified = await send(
      sendBody('hi@fresh.example.com', ['a@example.org']),
      unverified.subAccount.apiKey,
    );
    expect(fromUnverified.body[0]).toMatchObject({ errorCode: 3 });
    expect(fromUnverified.body[0].message).toMatch(/^SENDER_DOMAIN_NOT_VERIFIED: .*not verified/);
    // another sub-account's verified domain is not this sub-account's domain
    const foreignDomain = await send(sendBody('hi@shop.example.com', ['a@example.org']), unverified.subAccount.apiKey);
    expect(foreignDomain.body[0]).toMatchObject({ errorCode: 3 });
    expect(await stats(unverified.subAccount.apiKey)).toMatchObject({ processed: 2, dropped: 2, sent: 0 });
    expect((await contextOf(api.mailplane).store.jobs.countByState('deliver-batch')).pending).toBe(1);
  });

  it('renders each recipient’s custom fields and signed unsubscribe link from the stored message', async () => {
    const result = await send({
      ...sendBody('news@shop.example.com', []),
      to: [
        { email: 'ada@example.org', customFields: { name: '<Ada>' } },
        { email: 'bob@example.org', customFields: { name: 'Bob', count: 3 } },
      ],
      subject: 'Hi {{name}}',
      htmlBody: '<p>{{name}}</p><a href="{{unsubscribe}}">unsubscribe</a>',
      textBody: '{{name}} {{count}}{{missing}}',
    });
    const { store } = contextOf(api.mailplane);
    const rendered = [];
    for (const entry of result.body) {
      const found = await store.messages.getForDelivery(entry.messageId);
      rendered.push(
        renderMessage(
          contextOf(api.mailplane),
          await contextOf(api.mailplane).templateCompiler.compile(found!.batch.content),
          found!.message,
          found!.batch,
        ),
      );
    }
    expect(rendered.map((r) => r.subject)).toEqual(['Hi <Ada>', 'Hi Bob']);
    expect(rendered[0]!.htmlBody).toContain('<p>&lt;Ada&gt;</p>');
    expect(rendered[1]!.textBody).toBe('Bob 3');
    const link = /href="([^"]+)"/.exec(rendered[0]!.htmlBody!)![1]!;
    const token = link.split('/').at(-1)!;
    expect(verifyLinkToken(contextOf(api.mailplane), 'unsubscribe', token)).toBe(result.body[0].messageId);
    expect(
      verifyLinkToken(
        contextOf(api.mailplane),
        'unsubscribe',
        token.replace(result.body[0].messageId, result.body[1].messageId),
      ),
    ).toBeNull();
  });

  it('accepts 1,000 recipients in one request and refuses 1,001', async () => {
    const recipients = Array.from({ length: 1000 }, (_, i) => `r${i}@example.org`);
    const result = await send(sendBody('news@shop.example.com', recipients));
    expect(result.status).toBe(200);
    expect(new Set(result.body.map((e: { messageId: string }) => e.messageId)).size).toBe(1000);
    expectError(await send(sendBody('news@shop.example.com', [...recipients, 'one@more.org'])), 422);
    expect(await stats()).toMatchObject({ processed: 1000, sent: 1000 });
  });

  it('accepts 1,000 cc and bcc copies in one request, each a message, and refuses 1,001', async () => {
    const copies = (from: number) => Array.from({ length: 50 }, (_, i) => ({ email: `c${from + i}@example.org` }));
    const to = Array.from({ length: 10 }, (_, i) => ({
      email: `r${i}@example.org`,
      cc: copies(i * 100),
      bcc: copies(i * 100 + 50),
    }));
    const result = await send({ ...sendBody('news@shop.example.com', []), to });
    expect(result.status, result.text).toBe(200);
    expect(result.body.flatMap((e: { copies: unknown[] }) => e.copies)).toHaveLength(1000);
    expect(await stats()).toMatchObject({ processed: 1010, sent: 1010 });
    const refused = await send({
      ...sendBody('news@shop.example.com', []),
      to: [...to, { email: 'r10@example.org', cc: [{ email: 'one@more.org' }] }],
    });
    expectError(refused, 422);
    expect(refused.body.message).toContain('1000 cc and bcc copies per request');
  });

  it('refuses a blocked sub-account as a whole and an unknown IP pool, writing nothing', async () => {
    expectError(
      await send(sendBody('news@shop.example.com', ['a@example.org'], { ippool: 'nope' })),
      422,
      'UNKNOWN_IP_POOL',
    );
    await api.call('PUT', `/account/subaccount/${sender.subAccount.id}`, {
      account: api.accountKey,
      body: { blocked: true, block_reason: 'billing' },
    });
    const blocked = await send(sendBody('news@shop.example.com', ['a@example.org']));
    expectError(blocked, 403, 'SUBACCOUNT_BLOCKED');
    expect(blocked.body.message).toContain('billing');
    expect(await stats()).toMatchObject({ processed: 0 });
  });

  describe('bad input', () => {
    it('answers 401 to the wrong keys', async () => {
      await expectAuthBattery(api, 'POST', '/subaccount/email', 'sub', api.accountKey, {
        body: sendBody('news@shop.example.com', ['a@example.org']),
      });
    });

    it('answers 422 to malformed requests, naming the field, and writes nothing', async () => {
      const ok = sendBody('news@shop.example.com', ['a@example.org']);
      const cases: Array<[string, unknown]> = [
        ['no from', { ...ok, from: undefined }],
        ['from not an address', { ...ok, from: { email: 'nobody' } }],
        ['from with CRLF', { ...ok, from: { email: 'a@shop.example.com\r\nBcc: x@y.com' } }],
        ['from name with CRLF', { ...ok, from: { email: 'news@shop.example.com', name: 'x\r\nBcc: y@z.com' } }],
        ['no recipients', { ...ok, to: [] }],
        ['to not an array', { ...ok, to: 'a@example.org' }],
        ['no body at all', { from: ok.from, to: ok.to, subject: 'x' }],
        ['subject a number', { ...ok, subject: 5 }],
        [
          'unsubscribe as a custom field',
          { ...ok, to: [{ email: 'a@example.org', customFields: { unsubscribe: 'x' } }] },
        ],
        ['custom field an object', { ...ok, to: [{ email: 'a@example.org', customFields: { name: { first: 'a' } } }] }],
        ['custom field null', { ...ok, to: [{ email: 'a@example.org', customFields: { name: null } }] }],
        ['template syntax error', { ...ok, htmlBody: '<p>{{#if x}}</p>' }],
        ['unknown helper', { ...ok, subject: '{{shout name}}' }],
        ['header with CRLF', { ...ok, headers: { 'X-Campaign': 'a\r\nBcc: victim@example.com' } }],
        ['header overriding From', { ...ok, headers: { from: 'ceo@bank.com' } }],
        ['header overriding List-Unsubscribe', { ...ok, headers: { 'List-Unsubscribe': '<https://evil>' } }],
        ['header name with a colon', { ...ok, headers: { 'X-A:B': 'x' } }],
        ['header value not a string', { ...ok, headers: { 'X-Count': 5 } }],
        ['extra field', { ...ok, priority: 'high' }],
        ['attachment not base64', { ...ok, attachments: [{ filename: 'a.txt', content: '%%%' }] }],
        ['attachment with a path', { ...ok, attachments: [{ filename: '../etc/passwd', content: 'aGk=' }] }],
        ['webhookEndpoint not http', { ...ok, webhookEndpoint: 'ftp://x.example.com' }],
        ['groups not strings', { ...ok, groups: [1] }],
      ];
      for (const [label, body] of cases) {
        const result = await send(body);
        expect(result.status, `${label}: ${result.text}`).toBe(422);
        expectError(result, 422);
      }
      for (const raw of [
        '{"from":',
        JSON.stringify(ok).replace('"to":[{', '"to":[{"customFields":{"__proto__":"x"},'),
        JSON.stringify(ok).replace('"subject"', '"headers":{"__proto__":"x"},"subject"'),
        JSON.stringify(ok).replace('"subject"', '"headers":{"constructor":"x"},"subject"'),
      ]) {
        expectError(await api.call('POST', '/subaccount/email', { sub: sender.subAccount.apiKey, raw }), 422);
      }
      expect(await stats()).toMatchObject({ processed: 0 });
      expect((await contextOf(api.mailplane).store.jobs.countByState('deliver-batch')).pending).toBe(0);
    });

    it('answers 413 to a 10 MB body and 422 to 100,000 recipients', async () => {
      const huge = sendBody('news@shop.example.com', ['a@example.org'], { textBody: 'x'.repeat(10_000_000) });
      expectError(await send(huge), 413, 'PAYLOAD_TOO_LARGE');
      const many = {
        ...sendBody('news@shop.example.com', []),
        to: Array.from({ length: 100_000 }, () => ({ email: 'a@b.co' })),
      };
      expectError(await send(many), 422);
      expect(await stats()).toMatchObject({ processed: 0 });
    });

    it('answers 406 to unknown, malformed and other accounts’ message ids', async () => {
      const [entry] = (await send(sendBody('news@shop.example.com', ['a@example.org']))).body;
      const other = await api.mailplane.createAccount({ name: 'other' });
      expectError(
        await api.call('GET', `/account/message/${entry.messageId}`, { account: other.apiKey }),
        406,
        'MESSAGE_NOT_FOUND',
      );
      for (const id of ['nope', '00000000-0000-4000-8000-000000000000', '1']) {
        expectError(await api.call('GET', `/account/message/${id}`, { account: api.accountKey }), 406);
      }
      await expectAuthBattery(api, 'GET', `/account/message/${entry.messageId}`, 'account', sender.subAccount.apiKey);
    });
  });
});
