/**
 * Response validation: a real mailplane server (SQLite, node:http on 127.0.0.1) is filled with real
 * data through its API, then every route of the table is called once, and each success answer is
 * validated against two documents:
 *
 * - the vendor document (docs/reference/sendpost-openapi.yaml): the schema of that operation and
 *   status, for each of its operations mailplane serves;
 * - mailplane's own document (`GET /api/v1/openapi.json`): the schema of that route's success
 *   answer, for every route, mailplane's additions included (its objects allow no undeclared field,
 *   so a wire field missing from a zod response schema fails here).
 *
 * Where the vendor schema and the spec disagree, the spec wins: each such case is in
 * {@link VENDOR_EXCEPTIONS} with the exact validation errors it causes and is listed in
 * docs/differences.md; the test fails when an exception no longer happens or another error appears.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { apiRoutes } from '../../src/http/routes/index.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { startHttpHarness, type HttpHarness } from '../support/http-harness.js';
import { operationSchemas, vendorOperations, vendorResponseErrors, type Json } from '../support/openapi.js';
import { callJson, createTenant, uniqueTag, type JsonCall, type Tenant } from '../support/tenants.js';

/**
 * Vendor operations this test does not call, each with its reason. The test fails if one becomes
 * callable (it is in the route table) while still listed here.
 */
const NOT_CALLED: Record<string, string> = {};

/** A documented difference: why the spec wins, and the vendor-schema errors it causes. */
interface VendorException {
  why: string;
  /** Every vendor-schema error of the operation matches one of these; each matches at least one error. */
  errors: RegExp[];
}

/** The spec spells an IP's address `publicIp` (and `reverseDnsHostname`); the vendor `IP` requires `publicIP`. */
const IP_SPELLING: VendorException = {
  why: "the spec spells an IP's fields publicIp and reverseDnsHostname; the vendor IP requires publicIP",
  errors: [/^(\/\d+)?(\/ips\/\d+)?\/? must have required property 'publicIP'$/],
};

/**
 * Where the spec (docs/ and the existing tests) wins over the vendor schema, by operation; each is
 * in docs/differences.md, "The spec wins". Exactly these errors are expected: the test fails when an
 * exception no longer happens (take it off) or when any other error appears.
 */
const VENDOR_EXCEPTIONS: Record<string, VendorException> = {
  'GET /account/ip': IP_SPELLING,
  'GET /account/ip/{ip_id}': IP_SPELLING,
  'PUT /account/ip/{ip_id}': IP_SPELLING,
  'PUT /account/ip/allocate': IP_SPELLING,
  'POST /account/ippool': IP_SPELLING,
  'GET /account/ippool': IP_SPELLING,
  'GET /account/ippool/{ippool_id}': IP_SPELLING,
  'PUT /account/ippool/{ippool_id}': IP_SPELLING,
  'DELETE /subaccount/suppression': {
    why: 'the spec answers one object {message}; the vendor document an array of {id, message}',
    errors: [/^\/ must be array$/],
  },
  'GET /account/message/{message_id}': {
    why: 'a message lists its cc and bcc copies as the request gave them ({email, name, customFields}, test/integration/delivery-copies.test.ts); the vendor Message_to says strings',
    errors: [/^\/to\/(cc|bcc)\/\d+ must be string$/],
  },
};

/** One call of the battery: the route it exercises and how. */
interface Call {
  method: string;
  /** The route's path pattern, as the route table writes it. */
  route: string;
  /** The path with its parameters filled. */
  path: string;
  key: 'account' | 'sub';
  call?: Omit<JsonCall, 'account' | 'sub'>;
}

const today = () => new Date().toISOString().slice(0, 10);
const fill = (pattern: string, params: Record<string, string | number>) =>
  pattern.replace(/:(\w+)/g, (_m, name: string) => String(params[name]));

/** Every route of the table, called with real data of `tenant` (deletes last, on resources made for them). */
function battery(tenant: Tenant, made: Record<string, string | number>): Call[] {
  const sub = tenant.subs[0]!;
  const range = { from: today(), to: today() };
  const ids: Record<string, string | number> = {
    subaccount_id: sub.id,
    domain_id: sub.domain.id,
    ip_id: tenant.ips[0]!.id,
    tpsp_id: tenant.tpsps[0]!.id,
    ippool_id: tenant.pools[0]!.id,
    webhook_id: tenant.webhooks[0]!.id,
    message_id: sub.messageIds[0]!,
    sandbox_message_id: made.sandbox_message_id!,
    template_id: made.template_id!,
    alert_id: tenant.alerts[0]!.id,
    route_id: made.route_id!,
    inbound_message_id: made.inbound_message_id!,
    incident_id: tenant.incidents[0]!.id,
    // Version 1, made by the creation; the update below makes version 2 and activating 1 goes back.
    version: 1,
  };
  const c = (method: string, route: string, key: Call['key'], call?: Call['call'], params = ids): Call => ({
    method,
    route,
    path: fill(route, params),
    key,
    call,
  });
  const del = (route: string, key: Call['key'], call?: Call['call']) => c('DELETE', route, key, call, made);
  return [
    c('GET', '/account/subaccount', 'account', { query: { limit: '50' } }),
    c('GET', '/account/subaccount/:subaccount_id', 'account'),
    c('PUT', '/account/subaccount/:subaccount_id', 'account', {
      body: { name: `${tenant.tag}-renamed`, blocked: false },
    }),
    c('GET', '/subaccount/domain', 'sub'),
    c('GET', '/subaccount/domain/:domain_id', 'sub'),
    // Before the check below, which finds no records in the test zone and unverifies the domain.
    c('POST', '/subaccount/domain/:domain_id/inbound', 'sub'),
    c('POST', '/subaccount/domain/:domain_id/verify', 'sub'),
    c('POST', '/subaccount/domain/:domain_id/dkim/rotate', 'sub'),
    c('DELETE', '/subaccount/domain/:domain_id/dkim/rotate', 'sub'),
    c('GET', '/subaccount/route', 'sub', { query: { limit: '10' } }),
    c('GET', '/subaccount/route/count', 'sub'),
    c('GET', '/subaccount/route/:route_id', 'sub'),
    c('PUT', '/subaccount/route/:route_id', 'sub', { body: { action: 'store' } }),
    c('GET', '/subaccount/inbound/message', 'sub', { query: { limit: '10', routeId: String(made.route_id) } }),
    c('GET', '/subaccount/inbound/message/:inbound_message_id', 'sub'),
    c('GET', '/account/inbound/message', 'account', { query: { limit: '10', sender: 'ANN@remote.test' } }),
    c('GET', '/account/inbound/message/:inbound_message_id', 'account'),
    c('GET', '/subaccount/inbound/message/:inbound_message_id/raw', 'sub'),
    c('GET', '/subaccount/inbound/message/:inbound_message_id/attempt', 'sub', { query: { limit: '10' } }),
    // After the route became a `store` route above: delivering again records it stored again.
    c('POST', '/subaccount/inbound/message/:inbound_message_id/redeliver', 'sub'),
    c('GET', '/subaccount/suppression', 'sub', { query: { ...range, limit: '50' } }),
    c('POST', '/subaccount/suppression', 'sub', {
      body: {
        manual: [{ email: `${tenant.tag}-more@example.org` }],
        unsubscribe: [{ email: `${tenant.tag}-unsub@example.org` }],
        spamComplaint: [{ email: `${tenant.tag}-spam@example.org` }],
      },
    }),
    c('POST', '/subaccount/suppression/import', 'sub', {
      csv: `email,type,expires\n${tenant.tag}-csv@example.org,hardBounce,2099-01-01\nbad,manual,\n`,
    }),
    c('GET', '/subaccount/suppression/export', 'sub'),
    c('POST', '/account/suppression', 'account', { body: { manual: [{ email: `*@${tenant.tag}.example.org` }] } }),
    c('GET', '/account/suppression', 'account', { query: { limit: '50' } }),
    c('POST', '/account/suppression/import', 'account', { csv: `email\n${tenant.tag}-all@example.org\n` }),
    c('GET', '/account/suppression/export', 'account'),
    c('GET', '/account/message/:message_id', 'account'),
    c('GET', '/account/message/:message_id', 'account', undefined, { message_id: made.copied_message_id! }),
    c('GET', '/subaccount/message/:message_id', 'sub'),
    c('GET', '/account/ip', 'account'),
    c('GET', '/account/ip/:ip_id', 'account'),
    c('GET', '/account/ip/:ip_id', 'account', undefined, { ip_id: made.warming_ip_id! }),
    c('PUT', '/account/ip/:ip_id', 'account', { body: { reverseDnsHostname: 'mta1.example.com' } }),
    c('GET', '/account/tpsp', 'account'),
    c('GET', '/account/tpsp/:tpsp_id', 'account'),
    c('PUT', '/account/tpsp/:tpsp_id', 'account', { body: { port: 465, security: 'tls' } }),
    c('GET', '/account/ippool', 'account'),
    c('GET', '/account/ippool/:ippool_id', 'account'),
    c('PUT', '/account/ippool/:ippool_id', 'account', { body: { routingStrategy: 0, warmupInterval: 48 } }),
    c('GET', '/account/webhook', 'account'),
    c('GET', '/account/webhook/:webhook_id', 'account'),
    c('PUT', '/account/webhook/:webhook_id', 'account', { body: { opened: true, rotateSecret: true } }),
    c('PUT', '/account/webhook/:webhook_id', 'account', { body: { clicked: true } }),
    c('GET', '/subaccount/stat', 'sub', { query: range }),
    c('GET', '/subaccount/stat/aggregate', 'sub', { query: range }),
    c('GET', '/subaccount/stat/groups', 'sub', { query: range }),
    c('GET', '/account/stat/groups', 'account', { query: range }),
    c('GET', '/account/subaccount/stat/:subaccount_id', 'account', { query: range }),
    c('GET', '/account/subaccount/stat/:subaccount_id/aggregate', 'account', { query: range }),
    c('GET', '/account/subaccount/stat/:subaccount_id/group', 'account', { query: { ...range, group: sub.group } }),
    c('GET', '/account/stat', 'account', { query: range }),
    c('GET', '/account/stat/aggregate', 'account', { query: range }),
    c('GET', '/account/stat/group', 'account', { query: { ...range, group: sub.group } }),
    c('GET', '/account/stat/aggregate/group', 'account', { query: { ...range, group: sub.group } }),
    c('GET', '/account/message', 'account', { query: { limit: '50' } }),
    c('GET', '/subaccount/message', 'sub', { query: { limit: '50' } }),
    c('GET', '/account/event', 'account', { query: { limit: '50' } }),
    c('GET', '/subaccount/event', 'sub', { query: { limit: '50' } }),
    c('GET', '/account/message/export', 'account', { query: { format: 'ndjson' } }),
    c('GET', '/subaccount/message/export', 'sub', { query: { format: 'csv' } }),
    c('GET', '/account/event/export', 'account', { query: { format: 'ndjson' } }),
    c('GET', '/subaccount/event/export', 'sub', { query: { format: 'csv' } }),
    c('GET', '/account/sandbox/message', 'account'),
    c('GET', '/account/sandbox/message/:sandbox_message_id', 'account'),
    c('GET', '/subaccount/template', 'sub', { query: { limit: '50', search: tenant.tag } }),
    c('GET', '/subaccount/template/:template_id', 'sub'),
    c('PUT', '/subaccount/template/:template_id', 'sub', {
      body: { subject: 'Hello {{first}}', textBody: 'Hello {{first}}', ampBody: null },
    }),
    c('GET', '/subaccount/template/:template_id/version', 'sub'),
    c('GET', '/subaccount/template/:template_id/version/:version', 'sub'),
    c('POST', '/subaccount/template/:template_id/version/:version/activate', 'sub'),
    c('POST', '/subaccount/email/template', 'sub', {
      body: {
        from: { email: `news@${sub.domain.name}`, name: 'News' },
        to: [{ email: `${tenant.tag}-tpl@rcpt.test`, name: 'Ann', customFields: { first: 'Ann' } }],
        template: made.template_name!,
        templateVariables: { company: 'Acme' },
        groups: [sub.group],
      },
    }),
    c('POST', '/account/webhook/:webhook_id/secret/rotate', 'account'),
    c('GET', '/account/webhook/:webhook_id/delivery', 'account', { query: { limit: '10' } }),
    c('POST', '/account/webhook/:webhook_id/replay', 'account', {
      body: { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString(), eventTypes: [0, 2] },
    }),
    c('DELETE', '/subaccount/email/:message_id', 'sub', undefined, { message_id: made.scheduled_message_id! }),
    c('DELETE', '/subaccount/email/batch/:batch_id', 'sub', undefined, { batch_id: made.scheduled_batch_id! }),
    c('GET', '/account/alert', 'account', { query: { limit: '10' } }),
    c('GET', '/account/alert/count', 'account'),
    c('GET', '/account/alert/:alert_id', 'account'),
    c('PUT', '/account/alert/:alert_id', 'account', { body: { threshold: 7, windowHours: 1 } }),
    c('GET', '/account/incident', 'account', { query: { status: '0' } }),
    c('GET', '/account/incident/:incident_id', 'account'),
    c('POST', '/account/incident/:incident_id/resolve', 'account', { body: { note: 'handled' } }),
    c('GET', '/account/shaping/rule', 'account'),
    c('PUT', '/account/shaping/rule', 'account', {
      body: {
        rules: [{ destination: 'provider:gmail', source: `ip:${tenant.ips[0]!.publicIp}`, messagesPerMinute: 600 }],
      },
    }),
    c('GET', '/account/shaping/state', 'account', { query: { limit: '10' } }),
    c('POST', '/account/shaping/state/resume', 'account', { body: { key: made.shaping_key } }),
    c('GET', '/account/protection', 'account'),
    c('PUT', '/account/protection', 'account', { body: { hardBounceRate: { block: 12, warn: 6, minProcessed: 200 } } }),
    c('PUT', '/account/protection/subaccount/:subaccount_id', 'account', { body: { enabled: false } }),
    del('/account/protection/subaccount/:subaccount_id', 'account'),
    del('/account/alert/:alert_id', 'account'),
    del('/subaccount/route/:route_id', 'sub'),
    c('DELETE', '/subaccount/domain/:domain_id/inbound', 'sub'),
    del('/subaccount/suppression', 'sub', { body: { suppressions: [{ email: `${tenant.tag}-more@example.org` }] } }),
    del('/account/suppression', 'account', { body: { suppressions: [{ email: `${tenant.tag}-all@example.org` }] } }),
    del('/subaccount/domain/:domain_id', 'sub'),
    del('/account/ippool/:ippool_id', 'account'),
    del('/account/ip/:ip_id', 'account'),
    del('/account/tpsp/:tpsp_id', 'account'),
    del('/account/webhook/:webhook_id', 'account'),
    del('/account/subaccount/:subaccount_id', 'account'),
    del('/subaccount/template/:template_id', 'sub'),
  ];
}

/** A success answer as received, with the call that got it. */
interface Answer {
  call: Pick<Call, 'method' | 'route'>;
  status: number;
  body: unknown;
  text: string;
  contentType: string;
}

/**
 * Validates `answers` against mailplane's document `ours` (every route) and the vendor document (its
 * operations). `problems`: every failure, vendor errors included except those a documented exception
 * allows; `vendorErrors`: all vendor-schema errors, by vendor operation called.
 */
function checkAnswers(ours: Json, answers: Answer[]): { problems: string[]; vendorErrors: Map<string, string[]> } {
  const problems: string[] = [];
  const vendorErrors = new Map<string, string[]>();
  for (const { call, status, body, text, contentType } of answers) {
    const name = `${call.method} ${call.route}`;
    if (status >= 300) {
      problems.push(`${name}: ${status} ${text.slice(0, 200)}`);
      continue;
    }
    // mailplane's own document, for every route.
    const mine = operationSchemas(ours, call.method, call.route, status);
    if (!mine) problems.push(`${name}: status ${status} is not in mailplane's document`);
    else if (contentType.startsWith('message/rfc822')) {
      if (!mine.media.includes('message/rfc822'))
        problems.push(`${name}: answered a message, which the document does not list`);
    } else if (contentType.startsWith('text/csv')) {
      if (!mine.media.includes('text/csv')) problems.push(`${name}: answered CSV, which the document does not list`);
      else if (text.split('\n')[0]!.length === 0) problems.push(`${name}: a CSV export without its header line`);
    } else {
      const media = contentType.startsWith('application/x-ndjson') ? 'application/x-ndjson' : 'application/json';
      const values =
        media === 'application/json'
          ? [body]
          : text
              .split('\n')
              .filter((line) => line !== '')
              .map((line) => JSON.parse(line));
      if (media !== 'application/json' && values.length === 0) problems.push(`${name}: an empty export proves nothing`);
      for (const value of values)
        for (const error of mine.validate(media, value)) problems.push(`${name} (mailplane's document): ${error}`);
    }
    // The vendor document, for the operations it has.
    const vendor = vendorOperations().find((op) => op.matches(call.method, call.route));
    if (!vendor) continue;
    const errors = vendorResponseErrors(vendor, status, body);
    vendorErrors.set(vendor.name, [...(vendorErrors.get(vendor.name) ?? []), ...errors]);
    const allowed = VENDOR_EXCEPTIONS[vendor.name]?.errors ?? [];
    for (const error of errors)
      if (!allowed.some((pattern) => pattern.test(error))) problems.push(`${vendor.name} (vendor document): ${error}`);
  }
  return { problems, vendorErrors };
}

describe("success answers against the vendor document and mailplane's own (sqlite)", () => {
  let harness: HttpHarness;
  let tenant: Tenant;
  /** Resources made for this test: the ones the deletes remove, and answers that only creation gives. */
  const made: Record<string, string | number> = {};
  const creations: Answer[] = [];

  const send = async (call: Call): Promise<Answer> => {
    const key = call.key === 'account' ? { account: tenant.accountKey } : { sub: tenant.subs[0]!.apiKey };
    const result = await callJson(harness, call.method, call.path, { ...key, ...call.call });
    return {
      call,
      status: result.status,
      body: result.body,
      text: result.text,
      contentType: String(result.headers['content-type'] ?? ''),
    };
  };

  beforeAll(async () => {
    harness = await startHttpHarness('sqlite');
    tenant = await createTenant(harness, uniqueTag('oar'), 61);
    const sub = tenant.subs[0]!;
    // The creations, each answer kept for validation, and the resources the deletes remove.
    const create = async (call: Call): Promise<Json> => {
      const answer = await send(call);
      if (answer.status >= 300) throw new Error(`${call.method} ${call.path}: ${answer.status} ${answer.text}`);
      creations.push(answer);
      return answer.body as Json;
    };
    const c = (method: string, route: string, key: Call['key'], body: unknown): Call => ({
      method,
      route,
      path: route,
      key,
      call: { body },
    });
    made.subaccount_id = (
      await create(
        c('POST', '/account/subaccount', 'account', { name: `${tenant.tag}-doomed`, companyName: 'Doomed Ltd' }),
      )
    ).id;
    made.domain_id = (await create(c('POST', '/subaccount/domain', 'sub', { name: `${tenant.tag}-doomed.test` }))).id;
    // Receiving on the tenant's verified domain, and a webhook route on it (its secret shown once).
    const inboundPath = fill('/subaccount/domain/:domain_id/inbound', { domain_id: sub.domain.id });
    await create({ ...c('POST', '/subaccount/domain/:domain_id/inbound', 'sub', undefined), path: inboundPath });
    made.route_id = (
      await create(
        c('POST', '/subaccount/route', 'sub', {
          pattern: `help@${sub.domain.name}`,
          action: 'webhook',
          url: `https://${tenant.tag}-hooks.example/inbound`,
        }),
      )
    ).id;
    // A send with a cc copy, a suppressed recipient (dropped: errorCode and message) and a reply-to.
    const sent = await create(
      c('POST', '/subaccount/email', 'sub', {
        from: { email: `news@${sub.domain.name}`, name: 'News' },
        replyTo: { email: `reply@${sub.domain.name}`, name: 'Replies' },
        to: [
          {
            email: `${tenant.tag}-main@rcpt.test`,
            name: 'Main',
            cc: [{ email: `${tenant.tag}-cc@rcpt.test` }],
            customFields: { first: 'Ann' },
          },
          { email: sub.suppressions[0]! },
        ],
        subject: 'Hello {{first}}',
        htmlBody: '<p>Hi {{first}}</p>',
        textBody: 'Hi {{first}}',
        groups: [sub.group],
        headers: { 'X-Campaign': 'spring' },
        trackOpens: true,
      }),
    );
    made.copied_message_id = sent[0].messageId;
    const allocated = await create(
      c('PUT', '/account/ip/allocate', 'account', { ips: ['10.61.9.1', '10.61.9.2'], autoWarmupEnabled: true }),
    );
    made.warming_ip_id = allocated.id;
    made.ip_id = allocated.allocated[1].id;
    made.tpsp_id = (
      await create(
        c('POST', '/account/tpsp', 'account', {
          name: `${tenant.tag}-doomed-tpsp`,
          type: 0,
          host: 'smtp.example.com',
          port: 587,
          security: 'starttls',
          username: 'u',
          password: 'p',
        }),
      )
    ).id;
    made.ippool_id = (
      await create(
        c('POST', '/account/ippool', 'account', {
          name: `${tenant.tag}-doomed-pool`,
          ips: [{ publicIP: '10.61.9.2' }],
          tpsps: [made.tpsp_id],
          routingStrategy: 0,
        }),
      )
    ).id;
    made.webhook_id = (
      await create(
        c('POST', '/account/webhook', 'account', { url: `https://${tenant.tag}-doomed.example/hook`, delivered: true }),
      )
    ).id;
    made.alert_id = (
      await create(
        c('POST', '/account/alert', 'account', {
          name: `${tenant.tag}-doomed-alert`,
          entityType: 'ipPool',
          entityValue: made.ippool_id,
          parameter: 7,
          threshold: 50000,
          emails: ['ops@example.com'],
          slackUrl: 'https://hooks.slack.com/services/T0/B0/x',
        }),
      )
    ).id;
    // A stored template (the battery reads, updates, activates, sends with and deletes it).
    made.template_name = `${tenant.tag}-welcome`;
    made.template_id = (
      await create(
        c('POST', '/subaccount/template', 'sub', {
          name: made.template_name,
          subject: 'Hi {{first}}',
          htmlBody: '<p>Hi {{first}} of {{company}}</p>',
          textBody: 'Hi {{first}}',
        }),
      )
    ).id;
    // Two scheduled sends, an hour ahead: the battery cancels one by message and the other by batch.
    const scheduled = (email: string) =>
      c('POST', '/subaccount/email', 'sub', {
        from: { email: `news@${sub.domain.name}` },
        to: [{ email }],
        subject: 'Later',
        textBody: 'Later',
        sendAt: new Date(Date.now() + 3_600_000).toISOString(),
      });
    made.scheduled_message_id = (await create(scheduled(`${tenant.tag}-later1@rcpt.test`)))[0].messageId;
    made.scheduled_batch_id = (await create(scheduled(`${tenant.tag}-later2@rcpt.test`)))[0].batchId;
    // The sandbox catches what delivery hands it; no delivery runs here, so one capture is stored directly.
    const raw = Buffer.from(`From: news@${sub.domain.name}\r\nTo: a@rcpt.test\r\nSubject: Caught\r\n\r\nHello\r\n`);
    const capture = {
      accountId: tenant.accountId,
      messageId: null,
      mailFrom: `bounce@${sub.domain.name}`,
      rcptTo: ['a@rcpt.test'],
      subject: 'Caught',
      raw,
      received: 1_700_000_000_000_000_000n,
    };
    made.sandbox_message_id = (await contextOf(harness.mailplane).store.sandbox.capture(capture, 100)).id;
    // A message the route received, as the listener records it (no listener runs here).
    made.inbound_message_id = '0190f3a2-0000-7000-8000-00000000beef';
    const received = Buffer.from(
      `From: ann@remote.test\r\nTo: help@${sub.domain.name}\r\nSubject: Hi\r\n\r\nHello\r\n`,
    );
    await contextOf(harness.mailplane).store.inbound.insertMessage({
      id: made.inbound_message_id,
      accountId: tenant.accountId,
      subAccountId: sub.id,
      routeId: Number(made.route_id),
      receivedAt: 1_700_000_000_000_000_000n,
      mailFrom: 'ann@remote.test',
      rcptTo: `help@${sub.domain.name}`,
      from: 'ann@remote.test',
      subject: 'Hi',
      messageIdHeader: 'abc@remote.test',
      // A reply to the tenant's first message: its `replies` are then not empty.
      inReplyToMessageId: sub.messageIds[0]!,
      size: received.length,
      raw: received,
      auth: { spf: 'pass', dkim: 'none', dmarc: 'none', arc: 'none' },
      status: 'failed',
      detail: 'the receiver answered 500',
      updated: 1_700_000_000_000_000_000n,
    });
    // A source the receiver suspended, as delivery records it, for the state and its resume.
    made.shaping_key = `ip:${tenant.ips[0]!.id}|provider:gmail`;
    await contextOf(harness.mailplane).store.shaping.pushBack({
      key: made.shaping_key,
      accountId: tenant.accountId,
      nowMs: Date.now(),
      action: 'suspend',
      untilMs: Date.now() + 3_600_000,
      minFactor: 1 / 16,
      gapMs: 5000,
      reason: 'SPAMHAUS_LISTED',
      reply: '550 5.7.1 Client host blocked using zen.spamhaus.org',
    });
  }, 60_000);

  afterAll(() => harness?.close());

  it('answers every route with a body that conforms to both documents', async () => {
    const ours: Json = (await callJson(harness, 'GET', '/openapi.json')).body;
    const calls = battery(tenant, made);
    const answers = [...creations];
    for (const call of calls) answers.push(await send(call));

    const { problems, vendorErrors } = checkAnswers(ours, answers);
    // Every documented exception must still happen, or it is stale.
    for (const [name, exception] of Object.entries(VENDOR_EXCEPTIONS)) {
      for (const pattern of exception.errors)
        if (!vendorErrors.get(name)?.some((error) => pattern.test(error)))
          problems.push(`${name}: the exception ${pattern} (${exception.why}) no longer happens`);
    }
    expect(problems).toEqual([]);

    // Every route of the table was called, and every vendor operation but the listed ones.
    const called = new Set(answers.map(({ call }) => `${call.method} ${call.route}`));
    expect(apiRoutes.map((r) => `${r.method} ${r.path}`).filter((r) => !called.has(r))).toEqual([]);
    const vendorNames = vendorOperations().map((op) => op.name);
    expect(vendorNames.filter((n) => !vendorErrors.has(n) && !(n in NOT_CALLED))).toEqual([]);
    for (const name of Object.keys(NOT_CALLED)) {
      expect(vendorNames).toContain(name);
      const [method, path] = name.split(' ');
      expect(
        apiRoutes.some((r) => r.method === method && r.path === path),
        `${name} is served now: call it and take it off NOT_CALLED`,
      ).toBe(false);
    }
    for (const name of Object.keys(VENDOR_EXCEPTIONS))
      expect(vendorNames, `exception for an unknown operation ${name}`).toContain(name);
    expect(vendorErrors.size).toBe(37);
  }, 120_000);
});

describe('answers about delivered mail against both documents (sqlite)', () => {
  let env: DeliveryEnv;
  afterAll(() => env?.close());

  // The battery above runs no delivery: here a message is delivered to a real SMTP sink, so the
  // message and its events carry what only delivery adds (a Delivered event with its SMTP reply).
  it('validates a delivered message, its events and the lists that show them', async () => {
    env = await startDeliveryEnv('sqlite');
    const [entry] = await env.send([`ann@${RCPT_DOMAIN}`], {
      to: [{ email: `ann@${RCPT_DOMAIN}`, name: 'Ann', customFields: { first: 'Ann' } }],
      subject: 'Hello {{first}}',
      textBody: 'Hi {{first}}',
      attachments: [{ filename: 'a.txt', content: Buffer.from('attached').toString('base64') }],
      preText: 'Preview',
    });
    const view = await env.waitForStatus(entry!.messageId, 'delivered');
    expect(view.events.map((e: { type: number }) => e.type)).toEqual([0, 2]);
    expect(view.events[1]).toHaveProperty('smtpCode', 250);

    const account = { account: env.api.accountKey };
    const calls: Array<[string, string, Record<string, unknown>]> = [
      ['/account/message/:message_id', `/account/message/${entry!.messageId}`, account],
      ['/account/message', '/account/message', account],
      ['/account/event', '/account/event', account],
      ['/subaccount/event', '/subaccount/event', { sub: env.key }],
      ['/subaccount/message/:message_id', `/subaccount/message/${entry!.messageId}`, { sub: env.key }],
    ];
    const answers: Answer[] = [];
    for (const [route, path, options] of calls) {
      const result = await env.api.call('GET', path, options);
      answers.push({
        call: { method: 'GET', route },
        status: result.status,
        body: result.body,
        text: result.text,
        contentType: result.headers['content-type'] ?? '',
      });
    }
    const ours: Json = (await env.api.call('GET', '/openapi.json')).body;
    expect(checkAnswers(ours, answers).problems).toEqual([]);
    // The reference's Message lists its attachments' file names as strings.
    expect((answers[0]!.body as Json).attachments).toEqual(['a.txt']);
  }, 60_000);
});
