/**
 * The fuzzer's requests: for one route of the table, a fast-check arbitrary of raw HTTP requests
 * that are mostly near-valid (the route's example, mutated) and sometimes plainly hostile (wrong
 * method, malformed JSON, invalid UTF-8, wrong content type, wrong or foreign keys and ids).
 */
import fc from 'fast-check';
import type { AnyRoute } from '../../src/http/route.js';
import {
  applyMutations,
  malformedJsonText,
  mutation,
  type Mutation,
  nastyJson,
  nastyString,
  percentEncode,
  rawSegment,
  toJsonText,
} from './fuzz-values.js';
import type { RawRequest } from './http-harness.js';
import { routeExample, type ExampleRefs } from './route-examples.js';
import type { Tenant } from './tenants.js';

/** The tenants a fuzz run attacks from (`own`) and into (`foreign`). */
export interface FuzzWorld {
  own: Tenant;
  foreign: Tenant;
}

/** A request with a short description, so a counterexample with a megabyte body prints readably. */
export class FuzzRequest implements RawRequest {
  constructor(
    readonly method: string,
    readonly target: string,
    readonly headers: Record<string, string | string[]>,
    readonly body: string | Buffer,
  ) {}

  /** How fast-check prints it: everything but the middle of long bodies and targets. */
  [fc.toStringMethod](): string {
    const cut = (text: string) =>
      text.length > 400 ? `${text.slice(0, 300)}…(${text.length} chars)…${text.slice(-60)}` : text;
    const body = typeof this.body === 'string' ? this.body : `<bytes ${this.body.toString('latin1')}>`;
    return `${this.method} ${cut(this.target)} ${JSON.stringify(this.headers)} ${JSON.stringify(cut(body))}`;
  }
}

/** Header-safe text: printable Latin-1 (node refuses to send control characters in a header). */
export const latin1Text = fc.string({
  unit: fc
    .oneof(fc.integer({ min: 0x21, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }))
    .map((c) => String.fromCharCode(c)),
  maxLength: 60,
});

/** The key headers of a request to a route that needs `auth`. */
function keyHeaders(world: FuzzWorld, auth: AnyRoute['auth']): fc.Arbitrary<Record<string, string | string[]>> {
  const [own, other] = [world.own, world.foreign];
  const right = auth === 'account' ? 'x-account-apikey' : 'x-subaccount-apikey';
  const wrong = auth === 'account' ? 'x-subaccount-apikey' : 'x-account-apikey';
  const ownKey = auth === 'account' ? own.accountKey : own.subs[0]!.apiKey;
  const ownOtherKind = auth === 'account' ? own.subs[0]!.apiKey : own.accountKey;
  const foreignKeys = auth === 'account' ? [other.accountKey] : [other.subs[0]!.apiKey, own.subs[1]!.apiKey];
  const prefix = auth === 'account' ? 'mpak_' : 'mpsk_';
  return fc.oneof<Array<fc.WeightedArbitrary<Record<string, string | string[]>>>>(
    { weight: 14, arbitrary: fc.constant({ [right]: ownKey }) },
    { weight: 1, arbitrary: fc.constantFrom(...foreignKeys).map((k) => ({ [right]: k })) },
    { weight: 1, arbitrary: fc.constant({ [right]: ownOtherKind }) },
    { weight: 1, arbitrary: fc.constant({ [wrong]: ownOtherKind }) },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.constant({ [right]: ownKey, [wrong]: ownOtherKind }) },
    { weight: 1, arbitrary: fc.constant({ [right]: [ownKey, foreignKeys[0]!] }) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('', prefix, 'mpak_', 'mpsk_'), latin1Text)
        .map(([p, k]) => ({ [right]: `${p}${k}` })),
    },
    { weight: 1, arbitrary: fc.constant({ [right]: `${ownKey.slice(0, -1)}${ownKey.endsWith('A') ? 'B' : 'A'}` }) },
  );
}

/** Values of a path parameter: the caller's ids, another tenant's, unknown ones, and garbage. */
function paramValue(world: FuzzWorld, route: AnyRoute, name: string): fc.Arbitrary<string> {
  const { own, foreign } = world;
  const ids: Record<string, [string[], string[]]> = {
    // The first sub-account holds the sub-account key and the link fixtures: never named, since any
    // request may have its method changed (a GET turned DELETE).
    subaccount_id: [
      [own.defaultSub.id, own.subs[1]!.id].map(String),
      [foreign.defaultSub.id, ...foreign.subs.map((s) => s.id)].map(String),
    ],
    domain_id: [[String(own.subs[0]!.domain.id)], [own.subs[1]!, ...foreign.subs].map((s) => String(s.domain.id))],
    ip_id: [own.ips.map((ip) => String(ip.id)), foreign.ips.map((ip) => String(ip.id))],
    ippool_id: [own.pools.map((p) => String(p.id)), foreign.pools.map((p) => String(p.id))],
    tpsp_id: [own.tpsps.map((t) => String(t.id)), foreign.tpsps.map((t) => String(t.id))],
    webhook_id: [own.webhooks.map((w) => String(w.id)), foreign.webhooks.map((w) => String(w.id))],
    message_id: [own.subs.flatMap((s) => s.messageIds), foreign.subs.flatMap((s) => s.messageIds)],
    template_id: [
      [String(own.subs[0]!.template.id)],
      [own.subs[1]!, ...foreign.subs].map((s) => String(s.template.id)),
    ],
    version: [['1', '2', '3'], []],
    alert_id: [own.alerts.map((a) => String(a.id)), foreign.alerts.map((a) => String(a.id))],
    incident_id: [own.incidents.map((i) => String(i.id)), foreign.incidents.map((i) => String(i.id))],
  };
  const [mine, theirs] = ids[name] ?? [[], []];
  const choices: Array<{ weight: number; arbitrary: fc.Arbitrary<string> }> = [
    {
      weight: 3,
      arbitrary: fc
        .constantFrom(
          '0',
          '-1',
          '1.0',
          '01',
          '+1',
          '1e3',
          '0x1',
          ' 1',
          '１',
          '9007199254740993',
          '99999999999999999999',
          '2147483648',
          'NaN',
          'null',
          'undefined',
        )
        .map(percentEncode),
    },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 80 }).map(String) },
    { weight: 2, arbitrary: nastyString.map((s) => percentEncode(s.slice(0, 3000))) },
    { weight: 1, arbitrary: rawSegment },
    { weight: 1, arbitrary: fc.uuid().map((u) => u.toUpperCase()) },
  ];
  if (mine.length > 0) choices.push({ weight: 10, arbitrary: fc.constantFrom(...mine) });
  if (theirs.length > 0) choices.push({ weight: 3, arbitrary: fc.constantFrom(...theirs) });
  if (name === 'message_id' && mine.length > 0)
    choices.push({ weight: 1, arbitrary: fc.constantFrom(...mine).map((id) => id.toUpperCase()) });
  // However it was made (a random "7" is an id too), the first sub-account is never named.
  const keeper = String(own.subs[0]!.id);
  return fc.oneof(...choices).filter((value) => name !== 'subaccount_id' || value !== keeper);
}

const DATES = [
  '2026-02-30',
  '0000-01-01',
  '9999-12-31',
  '1970-01-01',
  '2026-1-1',
  '+002026-01-01',
  '2026-01-01T00:00:00Z',
  '20260101',
  '-000001-01-01',
];

/** A query string: the example's, mutated, or garbage. */
function queryText(example: Record<string, string> | undefined): fc.Arbitrary<string> {
  const keys = Object.keys(example ?? {});
  const value = fc.oneof(
    nastyString.map((s) => s.slice(0, 1500)),
    fc.constantFrom(...DATES),
    fc.constantFrom('-1', '0', '1001', '1e3', '1.5', '9007199254740993', '99999999999999999999'),
  );
  const edit = fc.record({
    op: fc.constantFrom('set', 'set', 'delete', 'add', 'repeat'),
    pick: fc.nat(),
    key: fc.oneof(
      fc.constantFrom('limit', 'offset', 'search', 'from', 'to', 'group', 'type'),
      nastyString.map((s) => s.slice(0, 300)),
    ),
    value,
  });
  const edited = fc.array(edit, { maxLength: 3 }).map((edits) => {
    const pairs: Array<[string, string]> = Object.entries(example ?? {});
    for (const e of edits) {
      const at = keys.length === 0 ? -1 : e.pick % pairs.length;
      if (e.op === 'add' || at < 0 || pairs.length === 0) pairs.push([e.key, e.value]);
      else if (e.op === 'set') pairs[at] = [pairs[at]![0], e.value];
      else if (e.op === 'delete') pairs.splice(at, 1);
      else pairs.unshift([pairs[at]![0], e.value]);
    }
    return pairs.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&');
  });
  return fc.oneof(
    { weight: 8, arbitrary: edited },
    { weight: 1, arbitrary: fc.array(rawSegment, { minLength: 1, maxLength: 4 }).map((s) => s.join('&')) },
    { weight: 1, arbitrary: fc.constant('') },
  );
}

/** A body length a little over the router's default limit (8 MiB). */
const OVER_THE_BODY_LIMIT = 9 * 1024 * 1024;

/** A body: the example mutated, a hostile value, malformed JSON, or bytes that are not UTF-8. */
function bodyText(example: unknown): fc.Arbitrary<string | Buffer> {
  const serialise = (m: Mutation[]) => {
    try {
      // Cut to a little over the 8 MiB limit: enough to meet the 413. A body of tens of megabytes
      // (three mutations that each add a few) would only take the test process, which is the
      // server's too, longer to build and write.
      return toJsonText(applyMutations(example, m)).slice(0, OVER_THE_BODY_LIMIT);
    } catch {
      // A safety net: should mutations ever compound past what a string holds, such a body would
      // be refused at the 8 MiB limit anyway.
      return toJsonText(example);
    }
  };
  const valid = example === undefined ? fc.constant('') : fc.array(mutation, { maxLength: 3 }).map(serialise);
  const badBytes = fc
    .tuple(valid, fc.nat(), fc.constantFrom([0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0x00], [0xf4, 0x90, 0x80, 0x80]))
    .map(([text, at, bytes]) => {
      const buffer = Buffer.from(text);
      const cut = buffer.length === 0 ? 0 : at % buffer.length;
      return Buffer.concat([buffer.subarray(0, cut), Buffer.from(bytes), buffer.subarray(cut)]);
    });
  return fc.oneof(
    { weight: example === undefined ? 4 : 14, arbitrary: valid },
    { weight: 2, arbitrary: nastyJson.map(toJsonText) },
    { weight: 2, arbitrary: malformedJsonText },
    { weight: 1, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: badBytes },
  );
}

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'multipart/form-data; boundary=x',
  '*/*',
  'application/json\u00ff',
];

/** Raw requests to `route` (mounted at `/api/v1`) as the fuzzer sends them. */
export function routeRequests(world: FuzzWorld, route: AnyRoute): fc.Arbitrary<FuzzRequest> {
  const names = route.path
    .split('/')
    .filter((s) => s.startsWith(':'))
    .map((s) => s.slice(1));
  const refs = (salt: string): ExampleRefs => ({
    salt,
    // A new address for allocations; an allocated one that is in no pool yet for pools.
    ips: [
      `10.${100 + (parseInt(salt.slice(0, 4), 36) % 150)}.${parseInt(salt.slice(4, 6), 36) % 250}.${1 + (salt.length % 250)}`,
    ],
    // (Once in a pool, an IP is refused by every other: half the pools take none, so creates succeed.)
    poolIps: salt.length % 2 === 0 ? [world.own.ips[1]!.publicIp] : [],
    tpspIds: world.own.tpsps.map((t) => t.id),
    // The system pool, which no request can delete or rename, so sends keep getting through.
    poolName: 'Shared',
    domainName: world.own.subs[0]!.domain.name,
    emails: [`x${salt}@example.org`, world.own.subs[0]!.suppressions[0]!],
    group: world.own.subs[0]!.group,
    webhookUrl: `https://hooks.example.com/${salt}`,
    templateName: world.own.subs[0]!.template.name,
  });
  const salt = fc.string({
    unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'),
    minLength: 6,
    maxLength: 10,
  });
  return fc
    .record({
      method: fc.oneof(
        { weight: 12, arbitrary: fc.constant(route.method) },
        { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS') },
      ),
      params: fc.tuple(...names.map((name) => paramValue(world, route, name))),
      slash: fc.boolean(),
      example: salt.map((s) => routeExample(route, refs(s))),
      keys: keyHeaders(world, route.auth),
      contentType: fc.oneof(
        { weight: 8, arbitrary: fc.constant('application/json') },
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
      ),
    })
    .chain(({ example, ...rest }) =>
      fc.record({ query: queryText(example.query), body: bodyText(example.body) }).map((q) => ({ ...rest, ...q })),
    )
    .map(({ method, params, slash, keys, contentType, query, body }) => {
      let i = 0;
      const path = route.path.replace(/:[a-z_]+/g, () => params[i++]!);
      const target = `/api/v1${path}${slash ? '/' : ''}${query === '' ? '' : `?${query}`}`;
      const headers: Record<string, string | string[]> = { ...keys };
      if (contentType !== undefined) headers['content-type'] = contentType;
      return new FuzzRequest(method, target, headers, body);
    });
}
