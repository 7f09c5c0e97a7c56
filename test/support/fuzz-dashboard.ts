/**
 * The fuzzer's requests to the dashboard mounted at `/dashboard`: its page and assets, sign-in and
 * sign-out, and its same-origin path to the API, with genuine, foreign and bent session cookies,
 * CSRF tokens, origins, acting-as headers and bodies, and every method.
 */
import fc from 'fast-check';
import { FuzzRequest, latin1Text, type FuzzWorld } from './fuzz-requests.js';
import { nastyString, percentEncode, rawSegment } from './fuzz-values.js';

/** A signed-in dashboard session: its cookie (`name=value`) and CSRF token. */
export interface DashboardSession {
  cookie: string;
  csrf: string;
}

/** One of several weighted arbitraries (shorter to write than fast-check's weighted records). */
const weighted = <T>(...entries: Array<[number, fc.Arbitrary<T>]>) =>
  fc.oneof(...entries.map(([weight, arbitrary]) => ({ weight, arbitrary })));

/** Paths below the mount: the page, its assets (and names that are not), the session, the API path, junk. */
function paths(world: FuzzWorld): fc.Arbitrary<string> {
  const [own, foreign] = [world.own.subs[0]!, world.foreign.subs[0]!];
  const apiPath = fc.constantFrom(
    '/account/subaccount',
    `/account/subaccount/${own.id}`,
    `/account/subaccount/${foreign.id}`,
    '/subaccount/domain',
    `/subaccount/domain/${own.domain.id}`,
    `/subaccount/domain/${foreign.domain.id}`,
    '/subaccount/suppression',
    '/account/message?limit=2',
    '/account/event?type=2',
    '/account/webhook',
    '/account/stat/aggregate?from=2026-01-01&to=2026-01-02',
    '/account/ip',
    '/account/sandbox/message',
    '/subaccount/email',
  );
  return weighted<string>(
    [2, fc.constantFrom('', '/', '/index.html', '/index.htm', '/INDEX.HTML')],
    [2, fc.constantFrom('/assets/app.js', '/assets/app.css')],
    [
      2,
      fc
        .oneof(
          rawSegment,
          fc.constantFrom(
            '../package.json',
            '..%2f..%2fpackage.json',
            'APP.JS',
            '__proto__',
            'constructor',
            'hasOwnProperty',
            'app.js/',
            'app.js%00',
          ),
        )
        .map((name) => `/assets/${name}`),
    ],
    [3, fc.constantFrom('/session', '/session/', '/SESSION', '/session?x=1')],
    [8, apiPath.map((path) => `/api/v1${path}`)],
    [
      2,
      fc
        .oneof(
          rawSegment,
          nastyString.map((s) => percentEncode(s.slice(0, 300))),
        )
        .map((segment) => `/api/v1/${segment}`),
    ],
    [1, fc.oneof(rawSegment, latin1Text.map(percentEncode)).map((segment) => `/${segment}`)],
  );
}

/** The request headers: the session's cookie and token (or others'), content type, origin, acting-as, ETag. */
function headers(
  world: FuzzWorld,
  sessions: readonly DashboardSession[],
  origin: string,
): fc.Arbitrary<Record<string, string | string[]>> {
  const session = fc.constantFrom(...sessions);
  // Mostly one session's cookie with its own token; sometimes another's, none, or garbage.
  const cookie = weighted<DashboardSession | string | undefined>(
    [10, session],
    [1, fc.constant(undefined)],
    [1, latin1Text.map((value) => `mailplane_dashboard=${value}`)],
    [1, fc.tuple(session, session).map(([a, b]) => `${a.cookie}; ${b.cookie}`)],
    [1, fc.constantFrom('mailplane_dashboard=', 'mailplane_dashboard', '=;=;', 'a=b; mailplane_dashboard=%00')],
  );
  const csrf = weighted<'own' | string | undefined>(
    [6, fc.constant('own')],
    [1, session.map((s) => s.csrf)],
    [1, fc.constant(undefined)],
    [1, latin1Text],
  );
  return fc
    .record({
      cookie,
      csrf,
      contentType: weighted<string | undefined>(
        [6, fc.constant('application/json')],
        [
          1,
          fc.constantFrom(
            undefined,
            'text/plain',
            'application/json; charset=utf-16',
            'application/x-www-form-urlencoded',
          ),
        ],
      ),
      origin: weighted<string | undefined>(
        [6, fc.constant(undefined)],
        [2, fc.constant(origin)],
        [1, fc.constantFrom('http://evil.test', 'null', 'not a url', `${origin}.evil.test`)],
      ),
      actAs: weighted<string | undefined>(
        [6, fc.constant(undefined)],
        [
          1,
          fc.constantFrom(
            String(world.own.subs[0]!.id),
            String(world.foreign.subs[0]!.id),
            '0',
            '-1',
            '1e3',
            '99999999999999999',
          ),
        ],
        [1, latin1Text],
      ),
      etag: weighted<string | undefined>(
        [6, fc.constant(undefined)],
        [1, fc.constantFrom('*', '""', 'W/"x"')],
        [1, latin1Text],
      ),
    })
    .map(({ cookie: c, csrf: token, contentType, origin: o, actAs, etag }) => {
      const own = typeof c === 'object' ? c : undefined;
      const all: Record<string, string | undefined> = {
        cookie: typeof c === 'object' ? c.cookie : c,
        'x-csrf-token': token === 'own' ? own?.csrf : token,
        'content-type': contentType,
        origin: o,
        'x-dashboard-subaccount': actAs,
        'if-none-match': etag,
      };
      return Object.fromEntries(
        Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined),
      );
    });
}

/** Bodies: a sign-in with each kind of key, a change through the API path, and garbage. */
function bodies(world: FuzzWorld): fc.Arbitrary<string> {
  const keys = [world.own.accountKey, world.own.subs[0]!.apiKey, world.foreign.accountKey];
  return weighted<string>(
    [3, fc.constant('')],
    [3, fc.constantFrom(...keys).map((apiKey) => JSON.stringify({ apiKey }))],
    [
      2,
      fc.constantFrom(
        '{"name":"fuzzed"}',
        '{"email":"x@rcpt.test"}',
        '[]',
        'null',
        '{"apiKey":5}',
        '{"apiKey":""}',
        '{',
      ),
    ],
    [2, nastyString.map((s) => JSON.stringify({ apiKey: s.slice(0, 1_000) }))],
    [1, nastyString.map((s) => s.slice(0, 100_000))],
  );
}

/**
 * Raw requests to the dashboard at `/dashboard` of the server at `origin`, for sessions signed in
 * there: `kept` ones for every request but a sign-out, which signs out one of `disposable` instead,
 * so that the sessions most requests use stay open for the whole run.
 */
export function dashboardRequests(
  world: FuzzWorld,
  sessions: { kept: readonly DashboardSession[]; disposable: readonly DashboardSession[] },
  origin: string,
): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: weighted<string>(
        [6, fc.constant('GET')],
        [3, fc.constant('POST')],
        [1, fc.constantFrom('DELETE', 'PUT', 'HEAD', 'OPTIONS', 'PATCH')],
      ),
      path: paths(world),
      headers: headers(world, sessions.kept, origin),
      body: bodies(world),
      disposable: fc.constantFrom(...sessions.disposable),
    })
    .map(({ method, path, headers: h, body, disposable }) => {
      const kept = sessions.kept.find((s) => s.cookie === h.cookie);
      const signsOut = method === 'DELETE' && path.startsWith('/session') && kept !== undefined;
      const sent = signsOut
        ? {
            ...h,
            cookie: disposable.cookie,
            ...(h['x-csrf-token'] === kept.csrf && { 'x-csrf-token': disposable.csrf }),
          }
        : h;
      return new FuzzRequest(method, `/dashboard${path}`, sent, body);
    });
}
