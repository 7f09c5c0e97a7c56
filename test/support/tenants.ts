/**
 * Tenants for the fuzzer and the isolation battery: accounts with sub-accounts, each filled with
 * every resource kind through the real HTTP API, every name carrying a tag unique to its owner so
 * a response body can be searched for another tenant's data.
 */
import { randomBytes } from 'node:crypto';
import { contextOf } from '../../src/instance-context.js';
import type { HttpHarness, RawResponse } from './http-harness.js';

/** What a JSON call carries. */
export interface JsonCall {
  account?: string;
  sub?: string;
  body?: unknown;
  /** Sent as a `text/csv` body instead of `body` (the suppression import). */
  csv?: string;
  query?: Record<string, string>;
}

/** A JSON response: the raw text and the parsed body (`undefined` when not JSON). */
export interface JsonResult extends RawResponse {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
  body: any;
}

/** Calls `/api/v1<path>` over HTTP with JSON in and out. */
export async function callJson(
  harness: HttpHarness,
  method: string,
  path: string,
  call: JsonCall = {},
): Promise<JsonResult> {
  const headers: Record<string, string> = { 'content-type': call.csv === undefined ? 'application/json' : 'text/csv' };
  if (call.account !== undefined) headers['x-account-apikey'] = call.account;
  if (call.sub !== undefined) headers['x-subaccount-apikey'] = call.sub;
  const query = call.query ? `?${new URLSearchParams(call.query).toString()}` : '';
  const response = await harness.send({
    method,
    target: `/api/v1${path}${query}`,
    headers,
    body: call.csv ?? (call.body === undefined ? '' : JSON.stringify(call.body)),
  });
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    body = undefined;
  }
  return { ...response, body };
}

/** A sub-account with its domain, suppressions and sent messages. */
export interface SubTenant {
  id: number;
  name: string;
  apiKey: string;
  smtpUsername: string;
  domain: { id: number; name: string };
  suppressions: string[];
  recipients: string[];
  messageIds: string[];
  /** The send request's id (`batchId`: the send is scheduled, so it can be cancelled by it). */
  batchIds: string[];
  group: string;
  /** A stored template (`/subaccount/template`). */
  template: { id: number; name: string };
}

/** An account with two sub-accounts and its account-level resources. */
export interface Tenant {
  tag: string;
  accountId: number;
  accountKey: string;
  /** The default sub-account every account starts with (no resources of its own). */
  defaultSub: { id: number; name: string };
  subs: SubTenant[];
  webhooks: Array<{ id: number; url: string }>;
  ips: Array<{ id: number; publicIp: string }>;
  tpsps: Array<{ id: number; name: string; host: string }>;
  pools: Array<{ id: number; name: string }>;
  /** An alert rule on the first sub-account, and an incident it opened (through the store, as the evaluation does). */
  alerts: Array<{ id: number; name: string }>;
  incidents: Array<{ id: number; summary: string }>;
}

const expectOk = (what: string, result: JsonResult): JsonResult => {
  if (result.status >= 300) throw new Error(`${what}: ${result.status} ${result.text}`);
  return result;
};

/** A tag of lower-case letters and digits that appears nowhere by chance. */
export const uniqueTag = (prefix: string): string => `${prefix}${randomBytes(4).toString('hex')}`;

/**
 * Creates an account (the store holds any number) and fills it: two sub-accounts, each with a
 * verified sending domain, suppressions, a stored template and `sends[i]` sent messages (so each has its own
 * statistics), and at account level a webhook, two IPs, a TPSP and a pool holding both.
 * `octet` keeps IP addresses distinct between tenants (10.<octet>.7.1 and 10.<octet>.7.2).
 */
export async function createTenant(
  harness: HttpHarness,
  tag: string,
  octet: number,
  sends: [number, number] = [1, 2],
): Promise<Tenant> {
  const { account, apiKey, defaultSubAccount } = await harness.mailplane.createAccount({ name: `${tag}-account` });
  const subs: SubTenant[] = [];
  for (const [index, count] of sends.entries()) {
    const n = index + 1;
    const sub = expectOk(
      'sub-account',
      await callJson(harness, 'POST', '/account/subaccount', {
        account: apiKey,
        body: { name: `${tag}-sub${n}`, companyName: `${tag}-company${n}` },
      }),
    ).body;
    const domainName = `${tag}-s${n}.test`;
    const domain = expectOk(
      'domain',
      await callJson(harness, 'POST', '/subaccount/domain', { sub: sub.apiKey, body: { name: domainName } }),
    ).body;
    await contextOf(harness.mailplane).store.domains.updateVerification(sub.id, domain.id, {
      dkimVerified: true,
      verified: true,
      updated: 1n,
    });
    const suppressions = [`${tag}-s${n}-manual@example.org`, `${tag}-s${n}-bounce@example.org`];
    expectOk(
      'suppressions',
      await callJson(harness, 'POST', '/subaccount/suppression', {
        sub: sub.apiKey,
        body: { manual: [{ email: suppressions[0] }], hardBounce: [{ email: suppressions[1] }] },
      }),
    );
    const group = `${tag}-s${n}-group`;
    const recipients = Array.from({ length: count }, (_, i) => `${tag}-s${n}-rcpt${i}@rcpt.test`);
    const sent = expectOk(
      'send',
      await callJson(harness, 'POST', '/subaccount/email', {
        sub: sub.apiKey,
        // Scheduled an hour ahead: a cancel through a foreign id would show in the owner's read-back.
        body: {
          from: { email: `news@${domainName}`, name: `${tag} sender` },
          to: recipients.map((email) => ({ email })),
          subject: `${tag}-subject`,
          textBody: `${tag}-text`,
          groups: [group],
          sendAt: String(BigInt(Date.now() + 3_600_000) * 1_000_000n),
        },
      }),
    ).body as Array<{ messageId: string; batchId: string }>;
    const template = expectOk(
      'template',
      await callJson(harness, 'POST', '/subaccount/template', {
        sub: sub.apiKey,
        body: { name: `${tag}-s${n}-template`, subject: 'Hi {{first}}', textBody: `${tag}-s${n}-template-text` },
      }),
    ).body;
    subs.push({
      id: sub.id,
      name: sub.name,
      apiKey: sub.apiKey,
      smtpUsername: sub.smtpAuths?.[0]?.username ?? '',
      domain: { id: domain.id, name: domainName },
      suppressions,
      recipients,
      messageIds: sent.map((e) => e.messageId),
      batchIds: [...new Set(sent.map((e) => e.batchId))],
      group,
      template: { id: template.id, name: template.name },
    });
  }
  const webhook = expectOk(
    'webhook',
    await callJson(harness, 'POST', '/account/webhook', {
      account: apiKey,
      body: { url: `https://${tag}-hook.example/events` },
    }),
  ).body;
  const allocated = expectOk(
    'ips',
    await callJson(harness, 'PUT', '/account/ip/allocate', {
      account: apiKey,
      body: { ips: [`10.${octet}.7.1`, `10.${octet}.7.2`] },
    }),
  ).body;
  const tpsp = expectOk(
    'tpsp',
    await callJson(harness, 'POST', '/account/tpsp', {
      account: apiKey,
      body: {
        name: `${tag}-tpsp`,
        type: 0,
        host: `${tag}-smtp.example`,
        port: 587,
        security: 'starttls',
        username: `${tag}-user`,
        password: `${tag}-password`,
      },
    }),
  ).body;
  const pool = expectOk(
    'pool',
    await callJson(harness, 'POST', '/account/ippool', {
      account: apiKey,
      body: { name: `${tag}-pool`, ips: [{ publicIP: `10.${octet}.7.1` }], tpsps: [tpsp.id], routingStrategy: 0 },
    }),
  ).body;
  const alert = expectOk(
    'alert',
    await callJson(harness, 'POST', '/account/alert', {
      account: apiKey,
      body: { name: `${tag}-alert`, entityType: 'subAccount', entityValue: subs[0]!.id, parameter: 0, threshold: 5 },
    }),
  ).body;
  const { incident } = await contextOf(harness.mailplane).store.incidents.open({
    accountId: account.id,
    topic: `alert:${alert.id}`,
    alertId: alert.id,
    entityType: 'subAccount',
    entityId: subs[0]!.id,
    parameter: 0,
    provider: null,
    threshold: 5,
    windowHours: 24,
    measuredValue: 12.5,
    sampleSize: 200,
    summary: `${tag}-incident`,
    started: 1n,
  });
  return {
    tag,
    accountId: account.id,
    accountKey: apiKey,
    defaultSub: { id: defaultSubAccount.id, name: defaultSubAccount.name },
    subs,
    webhooks: [{ id: webhook.id, url: webhook.url }],
    ips: (allocated.allocated as Array<{ id: number; publicIp: string }>).map(({ id, publicIp }) => ({ id, publicIp })),
    tpsps: [{ id: tpsp.id, name: tpsp.name, host: `${tag}-smtp.example` }],
    pools: [{ id: pool.id, name: pool.name }],
    alerts: [{ id: alert.id, name: alert.name }],
    incidents: [{ id: incident.id, summary: incident.summary }],
  };
}

/** Strings that identify `sub`'s data: its name, key, login, domain, addresses, messages, group, template. */
export function subMarkers(sub: SubTenant): string[] {
  return [
    sub.name,
    sub.apiKey,
    sub.smtpUsername,
    sub.domain.name,
    ...sub.suppressions,
    ...sub.recipients,
    ...sub.messageIds,
    ...sub.batchIds,
    sub.group,
    sub.template.name,
  ].filter((m) => m !== '');
}

/** Strings that identify the account-level data of `tenant` (not its sub-accounts'). */
export function accountMarkers(tenant: Tenant): string[] {
  return [
    tenant.accountKey,
    `${tenant.tag}-account`,
    ...tenant.webhooks.map((w) => w.url),
    ...tenant.ips.map((ip) => ip.publicIp),
    ...tenant.tpsps.flatMap((t) => [t.name, t.host, `${tenant.tag}-user`]),
    ...tenant.pools.map((p) => p.name),
    ...tenant.alerts.map((a) => a.name),
    ...tenant.incidents.map((i) => i.summary),
  ];
}

/** The ids of every resource of `tenant`, by the path parameter that names that kind. */
export function resourceIds(tenant: Tenant): Record<string, string[]> {
  return {
    subaccount_id: [tenant.defaultSub.id, ...tenant.subs.map((s) => s.id)].map(String),
    domain_id: tenant.subs.map((s) => String(s.domain.id)),
    ip_id: tenant.ips.map((ip) => String(ip.id)),
    ippool_id: tenant.pools.map((p) => String(p.id)),
    tpsp_id: tenant.tpsps.map((t) => String(t.id)),
    webhook_id: tenant.webhooks.map((w) => String(w.id)),
    message_id: tenant.subs.flatMap((s) => s.messageIds),
    batch_id: tenant.subs.flatMap((s) => s.batchIds),
    template_id: tenant.subs.map((s) => String(s.template.id)),
    alert_id: tenant.alerts.map((a) => String(a.id)),
    incident_id: tenant.incidents.map((i) => String(i.id)),
  };
}
