/**
 * The dashboard handler over real HTTP (mailplane/dashboard): the page and its CSP, sign-in with an
 * account or sub-account key, the session cookie, CSRF on every change, the API path that calls
 * the API with the session's key, sign-out, expiry, and sessions shared by two nodes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { createMailplane, manualClock, silentLogger } from 'mailplane';
import { openKyselyStore } from 'mailplane/storage/kysely';
import { createTestApi, TEST_SECRET, type TestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { startDashboardServer, type DashboardServer } from '../support/dashboard-server.js';

let api: TestApi | undefined;
const servers: DashboardServer[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await api?.close();
  api = undefined;
});

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown> & { [k: string]: unknown };
  text: string;
}

async function request(
  origin: string,
  method: string,
  path: string,
  options: { body?: unknown; cookie?: string; csrf?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  if (options.cookie) headers.cookie = options.cookie;
  if (options.csrf) headers['x-csrf-token'] = options.csrf;
  const response = await fetch(`${origin}${path}`, {
    method,
    headers,
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: Reply['body'] = {};
  try {
    body = JSON.parse(text) as Reply['body'];
  } catch {
    // the page and assets are no JSON
  }
  return { status: response.status, headers: response.headers, body, text };
}

async function signIn(origin: string, apiKey: string): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const reply = await request(origin, 'POST', '/dashboard/session', { body: { apiKey }, headers: { origin } });
  expect(reply.status).toBe(200);
  const setCookie = reply.headers.get('set-cookie')!;
  return { cookie: setCookie.split(';')[0]!, csrf: reply.body.csrfToken as string, setCookie };
}

describe.each(storeKinds)('dashboard over HTTP (%s)', (kind) => {
  it('serves the page with a CSP that forbids inline scripts, and its bundled assets', async () => {
    api = await createTestApi(kind);
    const server = await startDashboardServer(api);
    servers.push(server);
    const page = await request(server.origin, 'GET', '/dashboard');
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.text).toContain('<script type="module" src="/dashboard/assets/app.js"></script>');
    expect(page.text).not.toMatch(/<script>(?!<\/script>)/);
    const script = await request(server.origin, 'GET', '/dashboard/assets/app.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(script.text.length).toBeGreaterThan(10_000);
    const again = await request(server.origin, 'GET', '/dashboard/assets/app.js', {
      headers: { 'if-none-match': script.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
    expect((await request(server.origin, 'GET', '/dashboard/assets/../secret')).status).toBe(404);
    expect((await request(server.origin, 'GET', '/dashboard/assets/other.js')).status).toBe(404);
  });

  it('signs in with the account key, sets an HttpOnly SameSite=Strict cookie, and calls the API with the key kept on the server', async () => {
    api = await createTestApi(kind);
    const server = await startDashboardServer(api);
    servers.push(server);
    expect((await request(server.origin, 'GET', '/dashboard/session')).body).toEqual({ signedIn: false });
    expect((await request(server.origin, 'GET', '/dashboard/api/v1/account/subaccount')).body.code).toBe(
      'NOT_SIGNED_IN',
    );
    const wrong = await request(server.origin, 'POST', '/dashboard/session', {
      body: { apiKey: 'mpak_wrong' },
      headers: { origin: server.origin },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();

    const { cookie, csrf, setCookie } = await signIn(server.origin, api.accountKey);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Path=\/dashboard/);
    expect(setCookie).not.toMatch(/Secure/);
    expect(setCookie).not.toContain(api.accountKey);
    // The database holds the key encrypted and only a hash of the cookie's id.
    const session = await contextOf(api.mailplane).store.dashboardSessions!.find(
      contextOf(api.mailplane).secrets.lookupHash(cookie.split('=')[1]!),
      Date.now(),
    );
    expect(session?.sealedKey).not.toContain(api.accountKey);
    expect(contextOf(api.mailplane).secrets.decrypt(session!.sealedKey)).toBe(api.accountKey);

    const state = await request(server.origin, 'GET', '/dashboard/session', { cookie });
    expect(state.body).toMatchObject({ signedIn: true, kind: 'account', csrfToken: csrf });
    expect(state.text).not.toContain(api.accountKey);

    // A change without the CSRF token, or with another, is refused before reaching the API.
    const forged = await request(server.origin, 'POST', '/dashboard/api/v1/account/subaccount', {
      cookie,
      body: { name: 'forged' },
    });
    expect(forged.status).toBe(403);
    expect(forged.body.code).toBe('CSRF_TOKEN_INVALID');
    expect(
      (
        await request(server.origin, 'POST', '/dashboard/api/v1/account/subaccount', {
          cookie,
          csrf: `${csrf}x`,
          body: { name: 'forged' },
        })
      ).status,
    ).toBe(403);
    expect((await api.call('GET', '/account/subaccount', { account: api.accountKey })).body).toHaveLength(1);

    // With it, the API answers as it answers the key; the new key is shown once, then hidden.
    const created = await request(server.origin, 'POST', '/dashboard/api/v1/account/subaccount', {
      cookie,
      csrf,
      body: { name: 'acme' },
    });
    expect(created.status).toBe(201);
    expect(created.body.apiKey).toMatch(/^mpsk_/);
    const listed = await request(server.origin, 'GET', '/dashboard/api/v1/account/subaccount', { cookie });
    expect(listed.status).toBe(200);
    const acme = (
      listed.body as unknown as { name: string; apiKey: unknown; smtpAuths: { password: unknown }[] }[]
    ).find((s) => s.name === 'acme')!;
    expect(acme.apiKey).toBeNull();
    expect(acme.smtpAuths.every((a) => a.password === null)).toBe(true);
    expect(listed.text).not.toContain(created.body.apiKey as string);

    // An account session acts on a sub-account's own paths with the header; a bad id is 422.
    const domain = await request(server.origin, 'POST', '/dashboard/api/v1/subaccount/domain', {
      cookie,
      csrf,
      body: { name: 'acme.test' },
      headers: { 'x-dashboard-subaccount': String(created.body.id) },
    });
    expect(domain.status).toBe(200);
    expect(domain.body.name).toBe('acme.test');
    expect(
      (
        await request(server.origin, 'GET', '/dashboard/api/v1/subaccount/domain', {
          cookie,
          headers: { 'x-dashboard-subaccount': 'x' },
        })
      ).status,
    ).toBe(422);
    expect(
      (
        await request(server.origin, 'GET', '/dashboard/api/v1/subaccount/domain', {
          cookie,
          headers: { 'x-dashboard-subaccount': '999' },
        })
      ).status,
    ).toBe(406);

    // Sign-out needs the token too, ends the session and clears the cookie.
    expect((await request(server.origin, 'DELETE', '/dashboard/session', { cookie })).status).toBe(403);
    const out = await request(server.origin, 'DELETE', '/dashboard/session', { cookie, csrf });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect((await request(server.origin, 'GET', '/dashboard/api/v1/account/subaccount', { cookie })).status).toBe(401);
  });

  it('signs a sub-account key in to that sub-account alone', async () => {
    api = await createTestApi(kind);
    const server = await startDashboardServer(api);
    servers.push(server);
    const sub = (await api.call('POST', '/account/subaccount', { account: api.accountKey, body: { name: 'one' } }))
      .body;
    await api.call('POST', '/subaccount/domain', { sub: sub.apiKey, body: { name: 'one.test' } });
    const other = (await api.call('POST', '/account/subaccount', { account: api.accountKey, body: { name: 'two' } }))
      .body;
    await api.call('POST', '/subaccount/domain', { sub: other.apiKey, body: { name: 'two.test' } });
    const { cookie } = await signIn(server.origin, sub.apiKey);
    expect((await request(server.origin, 'GET', '/dashboard/session', { cookie })).body.kind).toBe('subaccount');
    const domains = await request(server.origin, 'GET', '/dashboard/api/v1/subaccount/domain', {
      cookie,
      headers: { 'x-dashboard-subaccount': String(other.id) },
    });
    expect((domains.body as unknown as { name: string }[]).map((d) => d.name)).toEqual(['one.test']);
    expect((await request(server.origin, 'GET', '/dashboard/api/v1/account/subaccount', { cookie })).status).toBe(401);
  });

  it('signs in with every key the API accepts, whatever its form, and with nothing else', async () => {
    api = await createTestApi(kind);
    const server = await startDashboardServer(api);
    servers.push(server);
    // The operator's own key (MAILPLANE_ACCOUNT_API_KEY), without mailplane's prefix.
    const chosen = 'operator-chosen-account-key-2026';
    await api.mailplane.ensureAccount({ apiKey: chosen });
    expect((await api.call('GET', '/account/subaccount', { account: chosen })).status).toBe(200);
    const { cookie } = await signIn(server.origin, chosen);
    expect((await request(server.origin, 'GET', '/dashboard/session', { cookie })).body.kind).toBe('account');
    const listed = await request(server.origin, 'GET', '/dashboard/api/v1/account/subaccount', { cookie });
    expect(listed.status).toBe(200);
    expect((listed.body as unknown as { name: string }[]).map((s) => s.name)).toEqual(['Default']);

    const revoked = (await api.call('POST', '/account/subaccount', { account: chosen, body: { name: 'gone' } })).body;
    expect((await api.call('DELETE', `/account/subaccount/${revoked.id}`, { account: chosen })).status).toBe(200);
    for (const apiKey of ['garbage', api.accountKey, revoked.apiKey as string]) {
      const refused = await request(server.origin, 'POST', '/dashboard/session', {
        body: { apiKey },
        headers: { origin: server.origin },
      });
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe('INVALID_API_KEY');
      expect(refused.headers.get('set-cookie')).toBeNull();
    }
    const empty = await request(server.origin, 'POST', '/dashboard/session', {
      body: { apiKey: '' },
      headers: { origin: server.origin },
    });
    expect(empty.status).toBe(422);
    expect(empty.headers.get('set-cookie')).toBeNull();

    // An account key spelled as a sub-account key is one the API refuses on every path: so does sign-in.
    const misleading = `mpsk_${chosen}`;
    await api.mailplane.ensureAccount({ apiKey: misleading });
    expect((await api.call('GET', '/account/subaccount', { account: misleading })).body.code).toBe('WRONG_KEY_KIND');
    expect(
      (
        await request(server.origin, 'POST', '/dashboard/session', {
          body: { apiKey: misleading },
          headers: { origin: server.origin },
        })
      ).status,
    ).toBe(401);
  });

  it('refuses a sign-in from another origin or not in JSON', async () => {
    api = await createTestApi(kind);
    const server = await startDashboardServer(api);
    servers.push(server);
    const cross = await request(server.origin, 'POST', '/dashboard/session', {
      body: { apiKey: api.accountKey },
      headers: { origin: 'http://evil.example' },
    });
    expect(cross.status).toBe(403);
    expect(cross.body.code).toBe('CROSS_ORIGIN');
    const form = await request(server.origin, 'POST', '/dashboard/session', {
      body: { apiKey: api.accountKey },
      headers: { 'content-type': 'text/plain' },
    });
    expect(form.status).toBe(422);
    expect(form.headers.get('set-cookie')).toBeNull();
    const secure = await request(server.origin, 'POST', '/dashboard/session', {
      body: { apiKey: api.accountKey },
      headers: { origin: server.origin.replace('http:', 'https:') },
    });
    expect(secure.headers.get('set-cookie')).toMatch(/; Secure/);
  });
});

describe.each(storeKinds)('dashboard sessions across nodes and time (%s)', (kind) => {
  it('accepts on a second node a session the first opened, and ends it when it expires', async () => {
    const clock = manualClock(Date.UTC(2026, 10, 1));
    api = await createTestApi(kind, { clock });
    const first = await startDashboardServer(api, { sessionTtlMs: 60_000 });
    servers.push(first);
    const store = await openKyselyStore({ url: api.url, logger: silentLogger });
    const second = createMailplane({ store, secret: TEST_SECRET, logger: silentLogger, clock });
    cleanups.push(() => second.close());
    const other = await startDashboardServer({ mailplane: second }, { sessionTtlMs: 60_000 });
    servers.push(other);
    const { cookie, csrf } = await signIn(first.origin, api.accountKey);
    const created = await request(other.origin, 'POST', '/dashboard/api/v1/account/subaccount', {
      cookie,
      csrf,
      body: { name: 'from node two' },
    });
    expect(created.status).toBe(201);
    clock.advance(60_000);
    expect((await request(first.origin, 'GET', '/dashboard/session', { cookie })).body).toEqual({ signedIn: false });
    expect((await request(other.origin, 'GET', '/dashboard/api/v1/account/subaccount', { cookie })).status).toBe(401);
  });
});
