/**
 * Property-based fuzzing of every route of the route table (and of the link endpoints and the
 * dashboard) through a real node:http server: whatever a request holds, the answer comes within the
 * bound, is never a 5xx, is a JSON error with a code and a message when it is a 4xx, and the server
 * still answers afterwards.
 *
 * `npm test` runs MAILPLANE_FUZZ_RUNS requests per store kind (default 3,000: about 24 per route, from a
 * new random seed each run, so the runs explore different requests); `npm run fuzz` runs 100,000. A failure prints fast-check's seed and path: replay it with
 * `MAILPLANE_FUZZ_SEED=<seed> MAILPLANE_FUZZ_PATH=<path> npx vitest run test/integration/route-fuzz.test.ts -t '<route>'`.
 */
import fc from 'fast-check';
import { contextOf } from '../../src/instance-context.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../../src/http/routes/index.js';
import { storeKinds } from '../support/databases.js';
import { dashboardRequests, type DashboardSession } from '../support/fuzz-dashboard.js';
import { linkRequests } from '../support/fuzz-links.js';
import { routeRequests, type FuzzRequest, type FuzzWorld } from '../support/fuzz-requests.js';
import { REQUEST_BOUND_MS, startHttpHarness, type HttpHarness, type RawResponse } from '../support/http-harness.js';
import { routeKey } from '../support/route-examples.js';
import { callJson, createTenant, uniqueTag } from '../support/tenants.js';

const TOTAL = Number(process.env.MAILPLANE_FUZZ_RUNS ?? 3_000);
const SEED = process.env.MAILPLANE_FUZZ_SEED === undefined ? undefined : Number(process.env.MAILPLANE_FUZZ_SEED);
const PATH = process.env.MAILPLANE_FUZZ_PATH;
/** Shares of the requests that go to the link endpoints and to the dashboard; the rest is split evenly between the routes. */
const LINK_SHARE = 0.06;
const DASHBOARD_SHARE = 0.04;
const LINK_RUNS = Math.ceil(TOTAL * LINK_SHARE);
const DASHBOARD_RUNS = Math.ceil(TOTAL * DASHBOARD_SHARE);
const ROUTE_RUNS = Math.ceil((TOTAL - LINK_RUNS - DASHBOARD_RUNS) / apiRoutes.length);
/** Generous: a run's requests take milliseconds each, but the machine may be loaded. */
const TIMEOUT_MS = Math.max(120_000, ROUTE_RUNS * 100);
/** A test's requests and the shrinking of a failure end by then, with time left for its setup. */
const SHRINK_AND_RUN_LIMIT_MS = TIMEOUT_MS * 0.75;

const ERROR_CODE = /^[A-Z][A-Z0-9_]+$/;

/**
 * Known defects owned by other changes, skipped so that the fuzzer stays green until they are
 * merged (each names its issue item). Empty: nothing is skipped here today (the one known case,
 * non-Latin-1 click targets, is kept out of the link arbitrary instead; see fuzz-links.ts).
 */
function knownDefect(_request: FuzzRequest, _response: RawResponse): string | undefined {
  return undefined;
}

/**
 * node:http's own answers to what it will not parse (a request line and headers over 16 KiB: 431;
 * a malformed request: 400), given before mailplane sees the request: no content type, no body.
 */
const fromNodeParser = (response: RawResponse) =>
  (response.status === 431 || response.status === 400) &&
  response.headers['content-type'] === undefined &&
  response.text === '';

/** What is wrong with an answer of the `/api/v1` router, or `null`. */
function apiProblem(request: FuzzRequest, response: RawResponse): string | null {
  if (response.status >= 500) return `answered ${response.status}: ${response.text.slice(0, 500)}`;
  if (request.method === 'HEAD' || fromNodeParser(response)) return null;
  // The activity exports answer a streamed CSV or NDJSON body (docs/activity.md); their errors are JSON.
  if (
    response.status < 300 &&
    /\/export\/?(\?|$)/.test(request.target) &&
    /^(text\/csv|application\/x-ndjson);/.test(String(response.headers['content-type']))
  )
    return null;
  if (!String(response.headers['content-type']).startsWith('application/json'))
    return `content-type ${response.headers['content-type']}`;
  let body: { code?: unknown; message?: unknown } | null;
  try {
    body = JSON.parse(response.text) as typeof body;
  } catch {
    return `a body that is not JSON: ${response.text.slice(0, 200)}`;
  }
  if (response.status >= 400) {
    if (typeof body?.code !== 'string' || !ERROR_CODE.test(body.code))
      return `an error without an UPPER_SNAKE code: ${response.text.slice(0, 300)}`;
    if (typeof body.message !== 'string' || body.message === '')
      return `an error without a message: ${response.text.slice(0, 300)}`;
  }
  return null;
}

/**
 * What is wrong with an answer of the dashboard, or `null`: its page and assets answer HTML, script
 * and style, and its path to the API answers what the API does; every refusal is the API's JSON error.
 */
function dashboardProblem(request: FuzzRequest, response: RawResponse): string | null {
  if (response.status >= 500) return `answered ${response.status}: ${response.text.slice(0, 500)}`;
  return response.status < 400 ? null : apiProblem(request, response);
}

/** Signs in to the dashboard with `apiKey` as a browser does; answers the session's cookie and CSRF token. */
async function signIn(harness: HttpHarness, apiKey: string): Promise<DashboardSession> {
  const response = await harness.send({
    method: 'POST',
    target: '/dashboard/session',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiKey }),
  });
  expect(response.status, response.text).toBe(200);
  const cookie = String(response.headers['set-cookie']).split(';')[0]!;
  return { cookie, csrf: (JSON.parse(response.text) as { csrfToken: string }).csrfToken };
}

describe.each(storeKinds)('fuzzing every route through node:http (%s)', (kind) => {
  let harness: HttpHarness;
  let world: FuzzWorld;
  let sent = 0;
  let skipped = 0;
  let startedAt = 0;
  /** Answers by route and status class, to show how far past validation the requests got. */
  const answered = new Map<string, { ok: number; total: number }>();

  beforeAll(async () => {
    harness = await startHttpHarness(kind);
    world = {
      own: await createTenant(harness, uniqueTag('fa'), 11),
      foreign: await createTenant(harness, uniqueTag('fb'), 22),
    };
    startedAt = performance.now();
  });
  afterAll(async () => {
    const seconds = (performance.now() - startedAt) / 1000;
    console.log(
      `route fuzz (${kind}): ${sent} requests in ${seconds.toFixed(1)} s (${Math.round(sent / seconds)}/s), ${skipped} known defects skipped`,
    );
    const shares = [...answered].map(([key, { ok, total }]) => `${key} ${Math.round((100 * ok) / total)}%`);
    console.log(`route fuzz (${kind}): share of 2xx answers: ${shares.join(', ')}`);
    await harness?.close();
  });

  const run = async (
    label: string,
    requests: fc.Arbitrary<FuzzRequest>,
    numRuns: number,
    check: (request: FuzzRequest, response: RawResponse) => string | null,
  ) => {
    const counts = answered.get(label) ?? { ok: 0, total: 0 };
    answered.set(label, counts);
    await fc.assert(
      fc.asyncProperty(requests, async (request) => {
        sent++;
        const response = await harness.send(request);
        counts.total++;
        if (response.status < 300) counts.ok++;
        const problem = check(request, response);
        if (problem === null) return;
        if (knownDefect(request, response) !== undefined) {
          skipped++;
          return;
        }
        throw new Error(problem);
      }),
      {
        numRuns,
        seed: SEED,
        path: PATH,
        endOnFailure: PATH === undefined ? false : true,
        // Ends the run (and the shrinking of a failure) before vitest's timeout would, so that a
        // slow run fails with its seed and counterexample instead of leaving its requests running
        // beside the next test's.
        interruptAfterTimeLimit: SHRINK_AND_RUN_LIMIT_MS,
        markInterruptAsFailure: true,
      },
    );
  };

  // First, while the first sub-account (whose messages the tokens name) is surely still there.
  it(
    'the link endpoints: open, click, unsubscribe',
    async () => {
      const messages = world.own.subs.flatMap((s) => s.messageIds);
      const foreign = world.foreign.subs.flatMap((s) => s.messageIds);
      await run(
        'links',
        linkRequests(contextOf(harness.mailplane), messages, foreign),
        LINK_RUNS,
        (_request, response) =>
          response.status >= 500 ? `answered ${response.status}: ${response.text.slice(0, 300)}` : null,
      );
    },
    TIMEOUT_MS,
  );

  it(
    'the dashboard: page, assets, sign-in and sign-out, and its path to the API',
    async () => {
      // Tenants of its own: its sessions change and delete what their keys may (through the API
      // path, as the API fuzzing below does), and the other tests count on the world's tenants.
      const board: FuzzWorld = {
        own: await createTenant(harness, uniqueTag('da'), 33),
        foreign: await createTenant(harness, uniqueTag('db'), 44),
      };
      const keys = [board.own.accountKey, board.own.subs[0]!.apiKey, board.foreign.accountKey];
      const signedIn = () => Promise.all(keys.map((key) => signIn(harness, key)));
      const sessions = { kept: await signedIn(), disposable: [...(await signedIn()), ...(await signedIn())] };
      await run('dashboard', dashboardRequests(board, sessions, harness.origin), DASHBOARD_RUNS, dashboardProblem);
    },
    TIMEOUT_MS,
  );

  it.each(apiRoutes.map((route) => [routeKey(route), route] as const))(
    '%s',
    async (key, route) => run(key, routeRequests(world, route), ROUTE_RUNS, apiProblem),
    TIMEOUT_MS,
  );

  // The fuzzer also sends the foreign tenant's own key, so its resources may have changed: only
  // that the server answers, quickly and correctly, is checked.
  it('still answers every tenant afterwards', async () => {
    for (const key of [world.own.accountKey, world.foreign.accountKey]) {
      const health = await callJson(harness, 'GET', '/account/subaccount', { account: key });
      expect(health.status, health.text).toBe(200);
      expect(Array.isArray(health.body)).toBe(true);
      expect(health.ms).toBeLessThan(REQUEST_BOUND_MS);
    }
    const domains = await callJson(harness, 'GET', '/subaccount/domain', { sub: world.own.subs[0]!.apiKey });
    expect(domains.status, domains.text).toBe(200);
    // The dashboard still signs in, serves its page and reads the API.
    const session = await signIn(harness, world.foreign.accountKey);
    expect((await harness.send({ method: 'GET', target: '/dashboard/' })).status).toBe(200);
    const list = await harness.send({
      method: 'GET',
      target: '/dashboard/api/v1/account/subaccount',
      headers: { cookie: session.cookie },
    });
    expect(list.status, list.text).toBe(200);
  });
});
