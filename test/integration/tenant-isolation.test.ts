/**
 * Tenant isolation over every route of the route table, through node:http: two accounts with two
 * sub-accounts each, every resource kind filled, and every route tried with every wrong key (the
 * other tenants' keys, the wrong kind of key, invalid and missing keys) and every foreign id.
 * Wrong keys get 401, foreign ids the 406 of an unknown id, no answer holds another tenant's data,
 * and no write through a foreign id or reference changes what its owner reads back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyRoute } from '../../src/http/route.js';
import { apiRoutes } from '../../src/http/routes/index.js';
import { storeKinds } from '../support/databases.js';
import { startHttpHarness, type HttpHarness } from '../support/http-harness.js';
import { routeExample, routeKey, type ExampleRefs } from '../support/route-examples.js';
import {
  accountMarkers,
  callJson,
  createTenant,
  resourceIds,
  subMarkers,
  uniqueTag,
  type JsonCall,
  type SubTenant,
  type Tenant,
} from '../support/tenants.js';

/** Who calls: an account or one of its sub-accounts. */
interface Caller {
  label: string;
  tenant: Tenant;
  sub?: SubTenant;
}

const keyOf = (caller: Caller): JsonCall =>
  caller.sub ? { sub: caller.sub.apiKey } : { account: caller.tenant.accountKey };
const paramsOf = (route: AnyRoute) => [...route.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);
const fill = (route: AnyRoute, id: string) => route.path.replace(/:[a-z_]+/g, encodeURIComponent(id));

describe.each(storeKinds)('tenant isolation over every route (%s)', (kind) => {
  let harness: HttpHarness;
  let tenants: Tenant[];
  let callers: Caller[];
  let before: Map<string, string>;
  let requests = 0;
  /**
   * Markers a caller wrote into its own data (a webhook of its own with another tenant's URL, a
   * suppression of another tenant's address): seeing them again is no leak. By caller label.
   */
  const adopted = new Map<string, Set<string>>();

  /** What `caller` may see: its own data (an account sees its sub-accounts'), and what it wrote. */
  const owned = (caller: Caller): string[] => [
    ...(caller.sub
      ? subMarkers(caller.sub)
      : [...accountMarkers(caller.tenant), ...caller.tenant.subs.flatMap(subMarkers)]),
    ...(adopted.get(caller.label) ?? []),
  ];
  const allMarkers = (): string[] => tenants.flatMap((t) => [...accountMarkers(t), ...t.subs.flatMap(subMarkers)]);

  /** Ids of the resources `caller` does not own, for the path parameter `name`. */
  function foreignIds(caller: Caller, name: string): string[] {
    if (name === 'domain_id' && caller.sub)
      return tenants
        .flatMap((t) => t.subs)
        .filter((s) => s !== caller.sub)
        .map((s) => String(s.domain.id));
    if (name === 'template_id' && caller.sub)
      return tenants
        .flatMap((t) => t.subs)
        .filter((s) => s !== caller.sub)
        .map((s) => String(s.template.id));
    return tenants.filter((t) => t !== caller.tenant).flatMap((t) => resourceIds(t)[name] ?? []);
  }

  /** The example of `route` naming `victim`'s resources, so that a write would reach them if anything could. */
  function victimRefs(victim: Caller): ExampleRefs {
    const sub = victim.sub ?? victim.tenant.subs[0]!;
    return {
      salt: uniqueTag('x'),
      ips: victim.tenant.ips.map((ip) => ip.publicIp),
      poolIps: victim.tenant.ips.map((ip) => ip.publicIp),
      tpspIds: victim.tenant.tpsps.map((t) => t.id),
      poolName: victim.tenant.pools[0]!.name,
      domainName: sub.domain.name,
      emails: sub.suppressions,
      group: sub.group,
      webhookUrl: victim.tenant.webhooks[0]!.url,
      templateName: sub.template.name,
    };
  }

  /** Sends the request and checks that no other tenant's data is in the answer. */
  async function attempt(
    caller: Caller | null,
    key: JsonCall,
    method: string,
    path: string,
    example: { query?: Record<string, string>; body?: unknown },
  ) {
    requests++;
    const call = { ...key, query: example.query, body: example.body };
    const result = await callJson(harness, method, path, call);
    const sent = `${path} ${JSON.stringify(example)}`;
    const mine = new Set(caller ? owned(caller) : []);
    const leaked = allMarkers().filter((m) => !mine.has(m) && !sent.includes(m) && result.text.includes(m));
    expect(leaked, `${method} ${path} as ${caller?.label ?? 'nobody'} answered ${result.text.slice(0, 300)}`).toEqual(
      [],
    );
    expect(result.status, `${method} ${path}: ${result.text.slice(0, 300)}`).toBeLessThan(500);
    if (caller && result.status < 300 && method !== 'GET') {
      const written = allMarkers().filter((m) => sent.includes(m));
      // A sub-account's data is its account's too.
      for (const label of caller.sub ? [caller.label, caller.tenant.tag] : [caller.label]) {
        adopted.set(label, new Set([...(adopted.get(label) ?? []), ...written]));
      }
    }
    return result;
  }

  /** What each owner reads back of each of its resources, by id, and of its suppressions. */
  async function snapshot(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const read = async (label: string, path: string, key: JsonCall) => {
      const result = await callJson(harness, 'GET', path, key);
      out.set(label, `${result.status} ${result.text}`);
    };
    for (const t of tenants) {
      const account = { account: t.accountKey };
      for (const id of resourceIds(t).subaccount_id!) await read(`sub ${id}`, `/account/subaccount/${id}`, account);
      for (const ip of t.ips) await read(`ip ${ip.id}`, `/account/ip/${ip.id}`, account);
      for (const p of t.pools) await read(`pool ${p.id}`, `/account/ippool/${p.id}`, account);
      for (const x of t.tpsps) await read(`tpsp ${x.id}`, `/account/tpsp/${x.id}`, account);
      for (const w of t.webhooks) await read(`webhook ${w.id}`, `/account/webhook/${w.id}`, account);
      for (const w of t.webhooks)
        await read(`webhook deliveries ${w.id}`, `/account/webhook/${w.id}/delivery`, account);
      for (const a of t.alerts) await read(`alert ${a.id}`, `/account/alert/${a.id}`, account);
      for (const i of t.incidents) await read(`incident ${i.id}`, `/account/incident/${i.id}`, account);
      for (const s of t.subs) {
        for (const m of s.messageIds) await read(`message ${m}`, `/account/message/${m}`, account);
        await read(`domain ${s.domain.id}`, `/subaccount/domain/${s.domain.id}`, { sub: s.apiKey });
        await read(`template ${s.template.id}`, `/subaccount/template/${s.template.id}`, { sub: s.apiKey });
        await read(`template versions ${s.template.id}`, `/subaccount/template/${s.template.id}/version`, {
          sub: s.apiKey,
        });
        for (const email of s.suppressions)
          await read(`suppression ${email}`, '/subaccount/suppression', {
            sub: s.apiKey,
            query: { search: email },
          } as JsonCall);
      }
    }
    return out;
  }

  beforeAll(async () => {
    harness = await startHttpHarness(kind);
    tenants = [
      await createTenant(harness, uniqueTag('ia'), 31, [1, 2]),
      await createTenant(harness, uniqueTag('ib'), 32, [3, 4]),
    ];
    callers = tenants.flatMap((t) => [
      { label: `${t.tag}`, tenant: t },
      ...t.subs.map((sub) => ({ label: `${t.tag}/${sub.name}`, tenant: t, sub })),
    ]);
    before = await snapshot();
  });
  afterAll(async () => {
    console.log(`tenant isolation (${kind}): ${requests} requests`);
    await harness?.close();
  });

  it('counts each tenant’s sends in its own statistics only', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const range = { from: today, to: today };
    for (const t of tenants) {
      const own = t.subs.reduce((sum, s) => sum + s.messageIds.length, 0);
      expect(
        (await callJson(harness, 'GET', '/account/stat/aggregate', { account: t.accountKey, query: range })).body
          .processed,
      ).toBe(own);
      for (const s of t.subs) {
        expect(
          (await callJson(harness, 'GET', '/subaccount/stat/aggregate', { sub: s.apiKey, query: range })).body
            .processed,
        ).toBe(s.messageIds.length);
        expect(
          (
            await callJson(harness, 'GET', `/account/subaccount/stat/${s.id}/aggregate`, {
              account: t.accountKey,
              query: range,
            })
          ).body.processed,
        ).toBe(s.messageIds.length);
        expect(
          (await callJson(harness, 'GET', '/subaccount/stat/groups', { sub: s.apiKey, query: range })).body,
        ).toEqual([s.group]);
      }
      // The account's group names are its sub-accounts' own, none of another tenant's.
      expect(
        (await callJson(harness, 'GET', '/account/stat/groups', { account: t.accountKey, query: range })).body,
      ).toEqual(t.subs.map((s) => s.group).sort());
    }
  });

  // Before the battery, in which each account tries to allocate the other's addresses.
  it('refuses to allocate an IP that another account holds', async () => {
    const [a, b] = tenants as [Tenant, Tenant];
    const result = await callJson(harness, 'PUT', '/account/ip/allocate', {
      account: b.accountKey,
      body: { ips: [a.ips[1]!.publicIp] },
    });
    expect(result.status, result.text).toBe(403);
    expect((await callJson(harness, 'GET', '/account/ip', { account: b.accountKey })).text).not.toContain(
      a.ips[1]!.publicIp,
    );
  });

  it.each(apiRoutes.map((route) => [routeKey(route), route] as const))('%s', async (_key, route) => {
    const params = paramsOf(route);
    for (const caller of callers) {
      const rightKind = (route.auth === 'account') === !caller.sub;
      const victims = callers.filter(
        (v) => v.tenant !== caller.tenant || (caller.sub && v.sub && v.sub !== caller.sub),
      );
      for (const victim of victims) {
        const example = routeExample(route, victimRefs(victim));
        const ids =
          params.length === 0
            ? [null]
            : foreignIds(caller, params[0]!).filter(
                (id) => victim.sub === undefined || ownerOf(id, params[0]!) === victim.tenant,
              );
        // The answer to an id that exists nowhere, which a foreign id's must equal but for the id.
        const unknownId = params[0] === 'message_id' ? '00000000-0000-7000-8000-000000000000' : '2147483000';
        const unknown =
          params.length === 0
            ? null
            : await attempt(caller, keyOf(caller), route.method, fill(route, unknownId), example);
        for (const id of ids) {
          const path = id === null ? route.path : fill(route, id);
          const result = await attempt(caller, keyOf(caller), route.method, path, example);
          const what = `${route.method} ${path} as ${caller.label}: ${result.text.slice(0, 200)}`;
          if (!rightKind) {
            expect(result.status, what).toBe(401);
            expect(result.body.code, what).toBe('WRONG_KEY_KIND');
          } else if (id !== null) {
            expect(result.status, what).toBe(406);
            expect(result.text.replaceAll(id, '<id>'), what).toBe(unknown!.text.replaceAll(unknownId, '<id>'));
          }
        }
      }
    }
    // Keys that are no one's, keys of the other kind in the right header, and no key at all.
    const anyId = params.length === 0 ? null : foreignIds(callers[0]!, params[0]!)[0]!;
    const path = anyId === null ? route.path : fill(route, anyId);
    const example = routeExample(route, victimRefs(callers[0]!));
    const header = route.auth === 'account' ? 'account' : 'sub';
    const otherKind = route.auth === 'account' ? tenants[0]!.subs[0]!.apiKey : tenants[0]!.accountKey;
    for (const key of [
      'mpak_0000000000000000000000000000000',
      'mpsk_0000000000000000000000000000000',
      otherKind,
      'x'.repeat(5000),
      ' ',
    ]) {
      expect((await attempt(null, { [header]: key }, route.method, path, example)).status).toBe(401);
    }
    expect((await attempt(null, {}, route.method, path, example)).status).toBe(401);
  });

  /** The tenant owning resource `id` of kind `name`. */
  function ownerOf(id: string, name: string): Tenant | undefined {
    return tenants.find((t) => (resourceIds(t)[name] ?? []).includes(id));
  }

  it('refuses to send through another account’s pool, and drops mail from another sub-account’s domain', async () => {
    const [a, b] = tenants as [Tenant, Tenant];
    const send = (from: string, extra: Record<string, unknown> = {}) =>
      callJson(harness, 'POST', '/subaccount/email', {
        sub: a.subs[0]!.apiKey,
        body: { from: { email: from }, to: [{ email: 'x@rcpt.test' }], subject: 's', textBody: 't', ...extra },
      });
    const viaPool = await send(`news@${a.subs[0]!.domain.name}`, { ippool: b.pools[0]!.name });
    expect(viaPool.status).toBe(422);
    expect(viaPool.body.code).toBe('UNKNOWN_IP_POOL');
    for (const domain of [a.subs[1]!.domain.name, b.subs[0]!.domain.name]) {
      const dropped = await send(`news@${domain}`);
      expect(dropped.status).toBe(200);
      expect(dropped.body[0].errorCode, dropped.text).toBeDefined();
    }
  });

  it('refuses to send with a template of another sub-account, by name or id, and sends nothing', async () => {
    const [a, b] = tenants as [Tenant, Tenant];
    const sub = a.subs[0]!;
    for (const foreign of [a.subs[1]!, b.subs[0]!]) {
      for (const reference of [{ template: foreign.template.name }, { templateId: String(foreign.template.id) }]) {
        const body = { from: { email: `news@${sub.domain.name}` }, to: [{ email: 'x@rcpt.test' }], ...reference };
        const result = await callJson(harness, 'POST', '/subaccount/email/template', { sub: sub.apiKey, body });
        expect(result.status, result.text).toBe(422);
        expect(result.body.code).toBe('UNKNOWN_TEMPLATE');
      }
    }
  });

  it('leaves every resource as its owner reads it back', async () => {
    const after = await snapshot();
    for (const [label, value] of before) expect(after.get(label), label).toBe(value);
  });
});
