/**
 * Stored templates through the API (docs/templates.md): `/subaccount/template` with its versions,
 * and `POST /subaccount/email/template`, which answers as the plain send does and records the
 * template and version each message was made from.
 */
import { simpleParser } from 'mailparser';
import { contextOf } from '../../src/instance-context.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApi, useTestApi, type CallOptions, type TestApi } from '../support/api.js';
import { expectAuthBattery, expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { schemaErrors } from '../support/openapi.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';

const WELCOME = {
  name: 'Welcome Mail',
  subject: 'Welcome, {{first}}',
  htmlBody: '<p>Hello {{first}} from {{company}}</p>',
  textBody: 'Hello {{first}} from {{company}}',
};

describe.each(storeKinds)('stored templates through the API (%s)', (kind) => {
  const api = useTestApi(kind);
  let sender: Sender;
  let other: Sender;
  const as = (who: Sender, options: CallOptions = {}) => ({ sub: who.subAccount.apiKey, ...options });
  const create = (body: unknown, who = sender) => api.call('POST', '/subaccount/template', as(who, { body }));
  const update = (id: number, body: unknown, who = sender) =>
    api.call('PUT', `/subaccount/template/${id}`, as(who, { body }));
  const get = (path: string, who = sender, query?: Record<string, string>) =>
    api.call('GET', `/subaccount/template${path}`, as(who, { query }));
  const sendWith = (body: Record<string, unknown>, who = sender) =>
    api.call(
      'POST',
      '/subaccount/email/template',
      as(who, {
        body: {
          from: { email: `news@${who.domain.name}` },
          to: [{ email: 'ada@example.org', customFields: { first: 'Ada' } }],
          ...body,
        },
      }),
    );
  const processed = async (who = sender) => {
    const today = new Date().toISOString().slice(0, 10);
    return (await api.call('GET', '/subaccount/stat/aggregate', as(who, { query: { from: today, to: today } }))).body
      .processed as number;
  };
  const message = async (id: string) =>
    (await api.call('GET', `/account/message/${id}`, { account: api.accountKey })).body;

  beforeEach(async () => {
    sender = await createSender(api, 'shop', 'shop.example.com');
    other = await createSender(api, 'other', 'other.example.com');
  });

  it('creates a template as version 1, reads it back, lists it with search and paging, and refuses a duplicate name in any case', async () => {
    const created = await create(WELCOME);
    expect(created.status, created.text).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(Number),
      ...WELCOME,
      activeVersion: 1,
      latestVersion: 1,
      created: expect.any(Number),
      updated: expect.any(Number),
    });
    expect(created.text).toMatch(/"created":\d{19}/);
    const id = created.body.id as number;
    expect((await get(`/${id}`)).body).toEqual(created.body);
    for (const name of ['Receipt', 'Password reset', 'welcome back'])
      expect((await create({ name, subject: 's', textBody: 't' })).status).toBe(200);

    const list = await get('', sender, { search: 'WELCOME' });
    expect(list.status).toBe(200);
    expect(list.body.map((t: { name: string }) => t.name)).toEqual(['Welcome Mail', 'welcome back']);
    // A list carries no bodies.
    expect(list.body[0]).toEqual({
      id,
      name: 'Welcome Mail',
      subject: WELCOME.subject,
      activeVersion: 1,
      latestVersion: 1,
      created: expect.any(Number),
      updated: expect.any(Number),
    });
    expect((await get('', sender, { limit: '2', offset: '1' })).body.map((t: { name: string }) => t.name)).toEqual([
      'Receipt',
      'Password reset',
    ]);

    expectError(await create({ ...WELCOME, name: 'WELCOME MAIL' }), 403, 'TEMPLATE_EXISTS');
    // Another sub-account has its own names, and sees none of this one's templates.
    expect((await create(WELCOME, other)).status).toBe(200);
    expect((await get('', other)).body.map((t: { name: string }) => t.name)).toEqual(['Welcome Mail']);
    expectError(await get(`/${id}`, other), 406, 'TEMPLATE_NOT_FOUND');
    expectError(await get('/abc'), 406, 'TEMPLATE_NOT_FOUND');
    await expectAuthBattery(api, 'GET', `/subaccount/template/${id}`, 'sub', api.accountKey);
  });

  it('refuses a template that does not compile with the parser’s message, and one over the limits, with 422', async () => {
    const unclosed = await create({ name: 'broken', subject: 'ok', htmlBody: '<p>\n{{#if first}}hello' });
    expectError(unclosed, 422, 'TEMPLATE_ERROR');
    expect(unclosed.body.message).toMatch(/htmlBody template does not compile: Parse error on line 2/);
    expect(unclosed.body.details[0].path).toBe('htmlBody');
    expectError(await create({ name: 'helper', subject: '{{shout first}}', textBody: 't' }), 422, 'TEMPLATE_ERROR');
    expectError(await create({ name: 'partial', subject: 's', textBody: '{{> header}}' }), 422, 'TEMPLATE_ERROR');
    expectError(
      await create({ name: 'large', subject: 's', textBody: 'x'.repeat(524_289) }),
      422,
      'TEMPLATE_TOO_LARGE',
    );
    expectError(
      await create({ name: 'complex', subject: 's', textBody: '{{a}}'.repeat(5001) }),
      422,
      'TEMPLATE_TOO_COMPLEX',
    );
    expectError(await create({ name: 'nobody', subject: 's' }), 422);
    expectError(await create({ name: 'nul', subject: 's', textBody: 'a\u0000b' }), 422);
    expectError(await create({ name: '', subject: 's', textBody: 't' }), 422);
    expect((await get('')).body).toEqual([]);
  });

  it('makes each update a new active version, keeps the last 20 readable, and activates an older one', async () => {
    const id = (await create(WELCOME)).body.id as number;
    const second = await update(id, { subject: 'Second {{first}}', htmlBody: null });
    expect(second.status, second.text).toBe(200);
    // Parts not given are carried over from the active version; null removes one.
    expect(second.body).toMatchObject({
      subject: 'Second {{first}}',
      textBody: WELCOME.textBody,
      activeVersion: 2,
      latestVersion: 2,
    });
    expect(second.body.htmlBody).toBeUndefined();
    expectError(await update(id, { textBody: null }), 422);
    const bad = await update(id, { textBody: '{{#each}}' });
    expectError(bad, 422, 'TEMPLATE_ERROR');
    expect((await get(`/${id}`)).body).toEqual(second.body);
    // A rename alone makes no version.
    const renamed = await update(id, { name: 'Welcome' });
    expect(renamed.body).toMatchObject({ name: 'Welcome', activeVersion: 2, latestVersion: 2 });
    expect((await create({ name: 'Taken', subject: 's', textBody: 't' })).status).toBe(200);
    expectError(await update(id, { name: 'taken' }), 403, 'TEMPLATE_EXISTS');
    expectError(await update(id, {}), 422);
    expectError(await update(id, { name: 'x' }, other), 406, 'TEMPLATE_NOT_FOUND');

    for (let n = 3; n <= 23; n++) expect((await update(id, { textBody: `version ${n} {{first}}` })).status).toBe(200);
    const versions = await get(`/${id}/version`);
    expect(versions.status).toBe(200);
    expect(versions.body.map((v: { version: number }) => v.version)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 4),
    );
    expect(versions.body.at(-1)).toEqual({
      version: 23,
      active: true,
      subject: 'Second {{first}}',
      created: expect.any(Number),
    });
    expect(versions.body[0].active).toBe(false);
    expectError(await get(`/${id}/version/3`), 406, 'TEMPLATE_VERSION_NOT_FOUND');
    expectError(await get(`/${id}/version/x`), 406, 'TEMPLATE_VERSION_NOT_FOUND');
    const v10 = await get(`/${id}/version/10`);
    expect(v10.body).toEqual({
      templateId: id,
      version: 10,
      active: false,
      subject: 'Second {{first}}',
      textBody: 'version 10 {{first}}',
      created: expect.any(Number),
    });

    const activated = await api.call('POST', `/subaccount/template/${id}/version/10/activate`, as(sender));
    expect(activated.status, activated.text).toBe(200);
    expect(activated.body).toMatchObject({ activeVersion: 10, latestVersion: 23, textBody: 'version 10 {{first}}' });
    expectError(
      await api.call('POST', `/subaccount/template/${id}/version/2/activate`, as(sender)),
      406,
      'TEMPLATE_VERSION_NOT_FOUND',
    );
    expectError(
      await api.call('POST', `/subaccount/template/${id}/version/10/activate`, as(other)),
      406,
      'TEMPLATE_NOT_FOUND',
    );
    const sent = await sendWith({ templateId: String(id) });
    expect(sent.status, sent.text).toBe(200);
    expect((await message(sent.body[0].messageId)).template).toEqual({ id, name: 'Welcome', version: 10 });
    expect((await message(sent.body[0].messageId)).textBody).toBe('version 10 {{first}}');
  });

  it('answers a template send exactly as the plain send, and records the template and version on each message', async () => {
    const template = (await create(WELCOME)).body;
    await api.call(
      'POST',
      '/subaccount/suppression',
      as(sender, { body: { manual: [{ email: 'gone@example.org' }] } }),
    );
    const to = [
      { email: 'ada@example.org', customFields: { first: 'Ada' }, cc: [{ email: 'carl@example.org' }] },
      { email: 'not-an-address' },
      { email: 'gone@example.org' },
      { email: 'bob@example.org' },
    ];
    const variables = { company: 'Acme', first: 'friend' };
    const plain = await api.call(
      'POST',
      '/subaccount/email',
      as(sender, {
        body: {
          from: { email: 'news@shop.example.com' },
          to: to.map((r) => ({ ...r, customFields: { ...variables, ...r.customFields } })),
          subject: WELCOME.subject,
          htmlBody: WELCOME.htmlBody,
          textBody: WELCOME.textBody,
          groups: ['g'],
        },
      }),
    );
    const withTemplate = await sendWith({ to, template: 'welcome mail', templateVariables: variables, groups: ['g'] });
    expect(withTemplate.status, withTemplate.text).toBe(200);
    const shape = (body: Array<Record<string, unknown>>) =>
      JSON.stringify(body, (key, value) => (key === 'messageId' || key === 'submittedAt' ? typeof value : value));
    expect(shape(withTemplate.body)).toBe(shape(plain.body));
    for (const entry of withTemplate.body) expect(schemaErrors('EmailResponse', entry)).toEqual([]);

    const sent = await message(withTemplate.body[0].messageId);
    // (A message with cc copies does not meet the reference's Message schema, template or not: its `to.cc` are strings there.)
    expect(schemaErrors('Message', await message(withTemplate.body[3].messageId))).toEqual([]);
    expect(sent).toMatchObject({
      subject: WELCOME.subject,
      htmlBody: WELCOME.htmlBody,
      textBody: WELCOME.textBody,
      template: { id: template.id, name: 'Welcome Mail', version: 1 },
    });
    // The variables sit under the recipient's fields: the recipient's own value wins.
    expect(sent.customFields).toEqual({ company: 'Acme', first: 'Ada' });
    expect((await message(withTemplate.body[0].copies[0].messageId)).template).toEqual({
      id: template.id,
      name: 'Welcome Mail',
      version: 1,
    });
    expect((await message(plain.body[0].messageId)).template).toBeUndefined();
    expect(await processed()).toBe(10);

    // By id, as a number or as the vendor's string; the template's parts win, a body it lacks may come from the request.
    const htmlOnly = (await create({ name: 'html only', subject: 'Only {{first}}', htmlBody: '<b>{{first}}</b>' }))
      .body;
    for (const templateId of [htmlOnly.id, String(htmlOnly.id)]) {
      const byId = await sendWith({
        templateId,
        subject: 'ignored',
        htmlBody: '<i>ignored</i>',
        textBody: 'Text for {{first}}',
      });
      expect(byId.status, byId.text).toBe(200);
      expect(await message(byId.body[0].messageId)).toMatchObject({
        subject: 'Only {{first}}',
        htmlBody: '<b>{{first}}</b>',
        textBody: 'Text for {{first}}',
        template: { id: htmlOnly.id, version: 1 },
      });
    }
  });

  it('refuses an unknown template, a variable that is not a string, and a template of another sub-account with 422, sending nothing', async () => {
    const mine = (await create(WELCOME)).body;
    const theirs = (await create({ ...WELCOME, name: 'Theirs only' }, other)).body;
    const before = await processed();
    expectError(await sendWith({ template: 'nope' }), 422, 'UNKNOWN_TEMPLATE');
    expectError(await sendWith({ templateId: '999999' }), 422, 'UNKNOWN_TEMPLATE');
    expectError(await sendWith({ templateId: 'abc' }), 422, 'UNKNOWN_TEMPLATE');
    expectError(await sendWith({ templateId: theirs.id }), 422, 'UNKNOWN_TEMPLATE');
    expectError(await sendWith({ template: 'Theirs only' }), 422, 'UNKNOWN_TEMPLATE');
    for (const value of [1, true, null, ['a'], { a: 'b' }]) {
      const result = await sendWith({ template: 'Welcome Mail', templateVariables: { company: 'Acme', first: value } });
      expectError(result, 422, 'TEMPLATE_VARIABLE_NOT_STRING');
      expect(result.body.details[0].path).toBe('templateVariables.first');
    }
    expectError(await sendWith({}), 422);
    expectError(await sendWith({ template: 'Welcome Mail', templateId: mine.id }), 422);
    expectError(await sendWith({ template: 'Welcome Mail', templateVariables: { unsubscribe: 'x' } }), 422);
    expectError(await sendWith({ template: 'Welcome Mail', templateVariables: JSON.parse('{"__proto__":"x"}') }), 422);
    expectError(await sendWith({ template: 'a\u0000b' }), 422);
    // Merged with the variables, a recipient may still hold at most 100 fields.
    const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`v${i}`, 'x']));
    const own = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}`, 'x']));
    expectError(
      await sendWith({
        template: 'Welcome Mail',
        templateVariables: many,
        to: [{ email: 'ada@example.org', customFields: own }],
      }),
      422,
    );
    expect(await processed()).toBe(before);
    // A deleted template is unknown to sends; messages sent with it keep their content.
    const sent = await sendWith({ template: 'Welcome Mail' });
    const deleted = await api.call('DELETE', `/subaccount/template/${mine.id}`, as(sender));
    expect(deleted.body).toEqual({ id: mine.id, message: 'Template (Welcome Mail) has been deleted successfully.' });
    expectError(await get(`/${mine.id}`), 406, 'TEMPLATE_NOT_FOUND');
    expectError(await sendWith({ template: 'Welcome Mail' }), 422, 'UNKNOWN_TEMPLATE');
    expect((await message(sent.body[0].messageId)).htmlBody).toBe(WELCOME.htmlBody);
  });

  it('refuses a template beyond the 1,000 a sub-account may hold with 403, and takes one again after a delete', async () => {
    const store = contextOf(api.mailplane).store;
    for (let i = 0; i < 999; i++)
      await store.templates.create({
        subAccountId: sender.subAccount.id,
        name: `t${i}`,
        content: { subject: 's', textBody: 't' },
        created: 1n,
      });
    const last = await create({ name: 'last', subject: 's', textBody: 't' });
    expect(last.status, last.text).toBe(200);
    expectError(await create({ name: 'one too many', subject: 's', textBody: 't' }), 403, 'TEMPLATE_LIMIT_REACHED');
    expect((await create({ name: 'elsewhere', subject: 's', textBody: 't' }, other)).status).toBe(200);
    await api.call('DELETE', `/subaccount/template/${last.body.id}`, as(sender));
    expect((await create({ name: 'one too many', subject: 's', textBody: 't' })).status).toBe(200);
  });

  it('refuses a template send of a blocked sub-account as the plain send does', async () => {
    await create(WELCOME);
    await api.call('PUT', `/account/subaccount/${sender.subAccount.id}`, {
      account: api.accountKey,
      body: { blocked: true, block_reason: 'abuse' },
    });
    expectError(
      await api.call(
        'POST',
        '/subaccount/email',
        as(sender, { body: sendBody('news@shop.example.com', ['a@example.org']) }),
      ),
      403,
      'SUBACCOUNT_BLOCKED',
    );
    expectError(await sendWith({ template: 'Welcome Mail' }), 403, 'SUBACCOUNT_BLOCKED');
  });
});

describe.each(storeKinds)('a template send on the wire (%s)', (kind) => {
  let env: DeliveryEnv;
  beforeEach(async () => {
    env = await startDeliveryEnv(kind);
  });
  afterEach(() => env.close());

  it('delivers the template rendered with the variables and the recipient’s fields, DKIM-signed', async () => {
    const created = await env.api.call('POST', '/subaccount/template', {
      sub: env.key,
      body: { ...WELCOME, htmlBody: '<p>Hi {{first}} of {{company}}</p><a href="{{unsubscribe}}">unsubscribe</a>' },
    });
    expect(created.status, created.text).toBe(200);
    const sent = await env.api.call('POST', '/subaccount/email/template', {
      sub: env.key,
      body: {
        from: { email: 'news@sender.test' },
        to: [{ email: `ann@${RCPT_DOMAIN}`, customFields: { first: 'Ann' } }],
        template: 'Welcome Mail',
        templateVariables: { company: 'R&D', first: 'nobody' },
      },
    });
    expect(sent.status, sent.text).toBe(200);
    const view = await env.waitForStatus(sent.body[0].messageId, 'delivered');
    expect(view.template).toEqual({ id: created.body.id, name: 'Welcome Mail', version: 1 });
    const got = env.sink.received.find((m) => m.rcptTo.includes(`ann@${RCPT_DOMAIN}`))!;
    expect((await env.verifyDkim(got.raw)).status).toBe('pass');
    const mail = await simpleParser(got.raw);
    expect(mail.subject).toBe('Welcome, Ann');
    expect(mail.text?.trim()).toBe('Hello Ann from R&D');
    expect(mail.html).toContain('<p>Hi Ann of R&amp;D</p>');
  });
});

describe('the compiled templates of an instance', () => {
  const apis: TestApi[] = [];
  afterEach(async () => {
    await Promise.all(apis.splice(0).map((api) => api.close()));
  });

  it('are its own, kept within the bound of its templateCache option', async () => {
    const bounded = await createTestApi(storeKinds[0]!, { templateCache: { maxTemplates: 2 } });
    const other = await createTestApi(storeKinds[0]!);
    apis.push(bounded, other);
    const shop = await createSender(bounded, 'shop', 'shop.example.com');
    for (const issue of [1, 2, 3]) {
      const body = sendBody('news@shop.example.com', ['ada@example.org'], {
        subject: `Issue ${issue} for {{name}}`,
        textBody: `Issue ${issue}`,
      });
      const sent = await bounded.call('POST', '/subaccount/email', { sub: shop.subAccount.apiKey, body });
      expect(sent.status, sent.text).toBe(200);
    }
    // Three sends of two parts each: the two compiled last are kept, and none in the other instance.
    expect(contextOf(bounded.mailplane).templateCompiler.cached.templates).toBe(2);
    expect(contextOf(other.mailplane).templateCompiler.cached).toEqual({ templates: 0, characters: 0 });
    const defaults = contextOf(other.mailplane).config.templateCache;
    expect(defaults).toEqual({ maxTemplates: 1000, maxCharacters: 64 * 1024 * 1024 });
  });
});
