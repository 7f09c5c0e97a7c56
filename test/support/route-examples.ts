/**
 * A valid query and body for every route of the table, naming the resources given in
 * {@link ExampleRefs}: the fuzzer mutates them (so most requests get past validation into the
 * handlers), and the isolation battery fills them with another tenant's resources.
 */
import { z } from 'zod';
import type { AnyRoute } from '../../src/http/route.js';

/** The resources an example names. */
export interface ExampleRefs {
  /** Makes names unique (sub-accounts, pools and TPSPs refuse duplicates). */
  salt: string;
  /** Addresses to allocate. */
  ips: string[];
  /** Allocated addresses to put in a pool. */
  poolIps: string[];
  tpspIds: number[];
  poolName: string;
  /** A verified sending domain of the calling sub-account (or of the victim). */
  domainName: string;
  emails: string[];
  group: string;
  webhookUrl: string;
  /** A stored template of the calling sub-account (or of the victim), by name. */
  templateName?: string;
}

/** What a route is called with, besides its path. */
export interface RouteExample {
  query?: Record<string, string>;
  body?: unknown;
}

/** `METHOD /path` of a route, the key of the example table. */
export const routeKey = (route: Pick<AnyRoute, 'method' | 'path'>): string => `${route.method} ${route.path}`;

const today = () => new Date().toISOString().slice(0, 10);
const range = () => ({ from: today(), to: today() });

const pool = (r: ExampleRefs) => ({
  name: `pool-${r.salt}`,
  ips: r.poolIps.map((publicIP) => ({ publicIP })),
  tpsps: r.tpspIds,
  routingStrategy: 0,
  shouldOverflow: false,
  warmupInterval: 24,
});
const tpsp = (r: ExampleRefs) => ({
  name: `tpsp-${r.salt}`,
  type: 0,
  host: 'smtp.example.com',
  port: 587,
  security: 'starttls',
  username: 'u',
  password: 'p',
});

const alertRule = (r: ExampleRefs) => ({
  name: `alert-${r.salt}`,
  active: true,
  entityType: 'account',
  parameter: 2,
  threshold: '0.3',
  provider: 'all',
  processedCountThreshold: 100,
  windowHours: 24,
  emails: r.emails,
  slackUrl: r.webhookUrl,
});

const EXAMPLES: Record<string, (r: ExampleRefs) => RouteExample> = {
  'POST /account/subaccount': (r) => ({ body: { name: `sub-${r.salt}`, companyName: 'Co' } }),
  'GET /account/subaccount': () => ({ query: { limit: '5', offset: '0', search: 'sub' } }),
  'PUT /account/subaccount/:subaccount_id': (r) => ({
    body: { name: `renamed-${r.salt}`, blocked: false, block_reason: 'none' },
  }),
  'POST /subaccount/domain': (r) => ({ body: { name: `d${r.salt}.example.com` } }),
  'GET /subaccount/domain': () => ({ query: { limit: '5', offset: '0', search: 'test' } }),
  'GET /subaccount/suppression': () => ({ query: { limit: '5', offset: '0', type: 'manual', ...range() } }),
  'POST /subaccount/suppression': (r) => ({
    body: { manual: r.emails.map((email) => ({ email })), unsubscribe: [{ email: `u${r.salt}@example.org` }] },
  }),
  'DELETE /subaccount/suppression': (r) => ({ body: { suppressions: r.emails.map((email) => ({ email })) } }),
  'GET /subaccount/suppression/export': () => ({}),
  'GET /account/suppression': () => ({ query: { limit: '5', offset: '0', type: 'manual', ...range() } }),
  'POST /account/suppression': (r) => ({
    body: { manual: r.emails.map((email) => ({ email })), spamComplaint: [{ email: `*@s${r.salt}.example.org` }] },
  }),
  'DELETE /account/suppression': (r) => ({ body: { suppressions: r.emails.map((email) => ({ email })) } }),
  'GET /account/suppression/export': () => ({}),
  'GET /account/ip': () => ({ query: { limit: '5', offset: '0' } }),
  'PUT /account/ip/allocate': (r) => ({ body: { ips: r.ips, autoWarmupEnabled: false } }),
  'PUT /account/ip/:ip_id': () => ({
    body: { state: 0, autoWarmupEnabled: false, reverseDnsHostname: 'mta1.example.com' },
  }),
  'POST /account/tpsp': (r) => ({ body: tpsp(r) }),
  'GET /account/tpsp': () => ({ query: { limit: '5' } }),
  'PUT /account/tpsp/:tpsp_id': (r) => ({ body: { ...tpsp(r), port: 465, security: 'tls' } }),
  'POST /account/ippool': (r) => ({ body: pool(r) }),
  'GET /account/ippool': () => ({ query: { limit: '5', search: 'pool' } }),
  'PUT /account/ippool/:ippool_id': (r) => ({ body: pool(r) }),
  'POST /account/webhook': (r) => ({ body: { url: r.webhookUrl, enabled: true, delivered: true, opened: true } }),
  'GET /account/webhook': () => ({ query: { limit: '5' } }),
  'PUT /account/webhook/:webhook_id': (r) => ({ body: { url: r.webhookUrl, enabled: false, clicked: true } }),
  'GET /account/subaccount/stat/:subaccount_id/group': (r) => ({ query: { ...range(), group: r.group } }),
  'GET /account/stat/group': (r) => ({ query: { ...range(), group: r.group } }),
  'GET /account/stat/aggregate/group': (r) => ({ query: { ...range(), group: r.group } }),
  'GET /account/message': (r) => ({ query: { recipient: r.emails[0] ?? '', group: r.group, ...range(), limit: '5' } }),
  'GET /subaccount/message': (r) => ({ query: { sender: `news@${r.domainName}`, status: 'queued', limit: '5' } }),
  'GET /account/event': (r) => ({ query: { ippool: r.poolName, type: '0,2', limit: '5' } }),
  'GET /subaccount/event': (r) => ({ query: { group: r.group, ...range(), limit: '5' } }),
  'GET /account/message/export': (r) => ({ query: { recipient: r.emails[0] ?? '', format: 'csv' } }),
  'GET /subaccount/message/export': (r) => ({ query: { group: r.group, format: 'ndjson' } }),
  'GET /account/event/export': () => ({ query: { type: '0', format: 'csv', ...range() } }),
  'GET /subaccount/event/export': () => ({ query: { status: 'queued' } }),
  'POST /subaccount/email': (r) => ({
    body: {
      from: { email: `news@${r.domainName}`, name: 'News' },
      to: r.emails.map((email) => ({ email, customFields: { first: 'Ann' } })),
      subject: 'Hello {{first}}',
      textBody: 'Hi {{first}}',
      htmlBody: '<p>Hi {{first}} <a href="https://example.com/x">x</a></p>',
      ippool: r.poolName,
      groups: [r.group],
      trackOpens: true,
      trackClicks: true,
    },
  }),
  'DELETE /subaccount/email/:message_id': () => ({}),
  'DELETE /subaccount/email/batch/:batch_id': () => ({}),
  'POST /account/webhook/:webhook_id/secret/rotate': () => ({}),
  'POST /account/webhook/:webhook_id/replay': () => ({
    body: { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString(), eventTypes: [0, 2] },
  }),
  'POST /subaccount/template': (r) => ({
    body: {
      name: `tpl-${r.salt}`,
      subject: 'Hi {{first}}',
      htmlBody: '<p>Hi {{first}} of {{company}}</p>',
      textBody: 'Hi {{first}}',
    },
  }),
  'GET /subaccount/template': () => ({ query: { limit: '5', offset: '0', search: 'tpl' } }),
  'PUT /subaccount/template/:template_id': () => ({
    body: { subject: 'Hello {{first}}', textBody: 'Hello {{first}}', ampBody: null },
  }),
  'POST /subaccount/email/template': (r) => ({
    body: {
      from: { email: `news@${r.domainName}`, name: 'News' },
      to: r.emails.map((email) => ({ email, customFields: { first: 'Ann' } })),
      template: r.templateName ?? 'welcome',
      templateVariables: { company: 'Acme' },
      ippool: r.poolName,
      groups: [r.group],
    },
  }),
  'GET /subaccount/message/:message_id': () => ({}),
  'GET /account/webhook/:webhook_id/delivery': () => ({ query: { limit: '5', offset: '0' } }),
  'POST /account/alert': (r) => ({ body: alertRule(r) }),
  'GET /account/alert': () => ({ query: { limit: '5', offset: '0', search: 'alert' } }),
  'GET /account/alert/count': () => ({ query: { search: 'alert' } }),
  'PUT /account/alert/:alert_id': (r) => ({ body: { ...alertRule(r), active: false, windowHours: 168 } }),
  'GET /account/incident': () => ({ query: { limit: '5', offset: '0', status: '0' } }),
  'POST /account/incident/:incident_id/resolve': () => ({ body: { note: 'handled' } }),
};

/** A value of the JSON Schema `schema` (from zod), for routes the table above does not know yet. */
function fromJsonSchema(schema: Record<string, unknown>): unknown {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.anyOf)) return fromJsonSchema(schema.anyOf[0] as Record<string, unknown>);
  if (type === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    return Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, fromJsonSchema(v)]));
  }
  if (type === 'array') return [];
  if (type === 'integer' || type === 'number') return typeof schema.minimum === 'number' ? schema.minimum : 1;
  if (type === 'boolean') return true;
  if (type === 'string') return 'x';
  return null;
}

const derived = (schema: z.ZodType | undefined): unknown => {
  if (!schema) return undefined;
  try {
    return fromJsonSchema(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>);
  } catch {
    return {};
  }
};

/**
 * The example of `route`: from the table above, else the route's own schemas, read as JSON Schema
 * (so a new route is fuzzed near-validly before anyone writes its example). Statistics routes
 * without an entry get today's range.
 */
export function routeExample(route: AnyRoute, refs: ExampleRefs): RouteExample {
  const known = EXAMPLES[routeKey(route)];
  if (known) return known(refs);
  const query = route.query ? (derived(route.query as z.ZodType) as Record<string, string>) : undefined;
  const isRange = query !== undefined && 'from' in query && 'to' in query;
  return { query: isRange ? { ...query, ...range() } : query, body: derived(route.body as z.ZodType | undefined) };
}
