/**
 * The dashboard's HTTP handler: the page, its assets, sign-in and sign-out, and the same-origin
 * path to the API. Mounted with any bridge, like the API (docs/dashboard.md).
 */
import { ForbiddenError, MailplaneError, RouteNotFoundError, UnauthorizedError } from '../errors.js';
import { principalOfKey, type AuthDeps } from '../http/auth.js';
import { describeError } from '../logging/describe-error.js';
import { errorResponse, httpErrorRule } from '../http/errors.js';
import { listHeader, singleHeader } from '../http/headers.js';
import { jsonResponse } from '../http/json.js';
import type { HttpHandler, HttpRequest, HttpResponse } from '../http/types.js';
import { DashboardAssets } from './assets.js';
import { readCookie, SESSION_COOKIE, sessionCookie, type CookieScope } from './cookies.js';
import { pageResponse, SECURITY_HEADERS } from './page.js';
import { proxyToApi } from './proxy.js';
import { DashboardSessions, type OpenSession } from './sessions.js';
import { mapDashboardSessionStore } from '../store/dashboard-session-store.js';
import { contextOf } from '../instance-context.js';
import type { Mailplane } from '../mailplane.js';
import { mountHandlers, type MountedHandler } from '../http/mount.js';

/** What this module uses of the instance: what it calls uses, {@link AuthDeps}, and nothing more. */
export type DashboardDeps = AuthDeps;

/** Options of {@link createDashboard}. */
export interface DashboardOptions {
  /**
   * The path the handler is mounted at, as the browser sees it (default `/dashboard`): the page's
   * links and the cookie's `Path` use it.
   */
  basePath?: string;
  /** How long a session lasts after sign-in, in milliseconds (default 8 hours). */
  sessionTtlMs?: number;
}

/** The default {@link DashboardOptions.sessionTtlMs}: a working day. */
export const DEFAULT_SESSION_TTL_MS = 8 * 60 * 60 * 1000;

/** The request header that carries the session's CSRF token on every change. */
export const CSRF_HEADER = 'x-csrf-token';

/** The JSON of a sign-in request, from a parsed or raw body. */
function bodyJson(request: HttpRequest): unknown {
  if (request.body !== undefined) return request.body;
  const raw =
    typeof request.rawBody === 'string' ? request.rawBody : Buffer.from(request.rawBody ?? '').toString('utf8');
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new MailplaneError('invalid', 'MALFORMED_JSON', 'the body is not valid JSON');
  }
}

/**
 * Refuses a sign-in another site's page could have sent: it must be JSON (a cross-site form cannot
 * send that without the browser asking first) and, when the browser names its origin, from this
 * host. Returns whether the page was served over TLS (the cookie is then `Secure`).
 */
function checkSignInOrigin(request: HttpRequest): boolean {
  if (!/^application\/json\b/i.test(singleHeader(request.headers, 'content-type') ?? '')) {
    throw new MailplaneError('invalid', 'JSON_REQUIRED', 'sign in with a JSON body');
  }
  const origin = singleHeader(request.headers, 'origin');
  if (origin === undefined) return singleHeader(request.headers, 'x-forwarded-proto') === 'https';
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new ForbiddenError('CROSS_ORIGIN', 'sign-in from another origin is refused');
  }
  const host = singleHeader(request.headers, 'x-forwarded-host') ?? singleHeader(request.headers, 'host');
  if (url.host !== host) throw new ForbiddenError('CROSS_ORIGIN', 'sign-in from another origin is refused');
  return url.protocol === 'https:';
}

/**
 * The longest key sign-in looks up: Node's default limit on a request's headers (16 KiB), so no
 * longer key can reach the API either.
 */
const LONGEST_API_KEY = 16 * 1024;

/** The kind of a key that signs in, or 401. */
async function checkKey(ctx: DashboardDeps, apiKey: unknown): Promise<{ kind: OpenSession['kind']; apiKey: string }> {
  if (typeof apiKey !== 'string' || apiKey.length === 0 || apiKey.length > LONGEST_API_KEY) {
    throw new MailplaneError('invalid', 'API_KEY_REQUIRED', 'give the account or sub-account API key as apiKey');
  }
  // The API's own decision, so any key it accepts signs in (an operator's account key has no
  // prefix) and nothing else does.
  if (await principalOfKey(ctx, 'account', apiKey)) return { kind: 'account', apiKey };
  if (await principalOfKey(ctx, 'subaccount', apiKey)) return { kind: 'subaccount', apiKey };
  throw new UnauthorizedError('INVALID_API_KEY', 'this is not a valid account or sub-account API key');
}

/** `response` with the headers every dashboard answer carries. */
const withSecurityHeaders = (response: HttpResponse): HttpResponse => ({
  ...response,
  headers: { ...response.headers, ...SECURITY_HEADERS },
});

/**
 * The dashboard as an {@link HttpHandler}: mount it with a bridge at `basePath`, next to the API.
 *
 * @example
 * app.use('/dashboard', toExpress(createDashboard(mailplane)));
 * app.use(toKoa(createDashboard(mailplane), { prefix: '/dashboard' }));
 */
export function createDashboard(mailplane: Mailplane, options: DashboardOptions = {}): HttpHandler {
  const basePath = (options.basePath ?? '/dashboard').replace(/\/+$/, '');
  // The instance's store keeps the sessions, its secret box encrypts the keys in them.
  const ctx = contextOf(mailplane);
  const sessions = new DashboardSessions(
    ctx.store.dashboardSessions ?? mapDashboardSessionStore(),
    ctx.secrets,
    ctx.clock,
    options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS,
  );
  const assets = new DashboardAssets();
  const cookiePath = basePath === '' ? '/' : basePath;

  const signIn = async (request: HttpRequest): Promise<HttpResponse> => {
    const secure = checkSignInOrigin(request);
    const { kind, apiKey } = await checkKey(ctx, (bodyJson(request) as { apiKey?: unknown } | null)?.apiKey);
    const session = await sessions.open(kind, apiKey);
    const scope: CookieScope = { path: cookiePath, secure };
    const maxAge = Math.floor((session.expiresAt - ctx.clock.now()) / 1000);
    return jsonResponse(
      200,
      { signedIn: true, kind, csrfToken: session.csrfToken, expiresAt: session.expiresAt },
      { 'set-cookie': sessionCookie(session.id, scope, maxAge) },
    );
  };

  const route = async (request: HttpRequest): Promise<HttpResponse> => {
    const { method, path } = request;
    if ((path === '/' || path === '/index.html') && (method === 'GET' || method === 'HEAD'))
      return pageResponse(basePath);
    if (path.startsWith('/assets/') && method === 'GET') {
      const asset = await assets.respond(path.slice('/assets/'.length), listHeader(request.headers, 'if-none-match'));
      if (asset) return asset;
      throw new RouteNotFoundError('no such dashboard file');
    }
    if (path === '/session' && method === 'POST') return signIn(request);
    const session = await sessions.find(readCookie(request.headers, SESSION_COOKIE));
    if (path === '/session' && method === 'GET') {
      return jsonResponse(
        200,
        session
          ? { signedIn: true, kind: session.kind, csrfToken: session.csrfToken, expiresAt: session.expiresAt }
          : { signedIn: false },
      );
    }
    if (path !== '/session' && !path.startsWith('/api/v1/')) throw new RouteNotFoundError('no such dashboard path');
    if (!session) throw new UnauthorizedError('NOT_SIGNED_IN', 'sign in to the dashboard first');
    if (
      method !== 'GET' &&
      method !== 'HEAD' &&
      !sessions.checkCsrf(session, singleHeader(request.headers, CSRF_HEADER))
    ) {
      throw new ForbiddenError('CSRF_TOKEN_INVALID', `changes need the session's ${CSRF_HEADER} header`);
    }
    if (path === '/session') {
      if (method !== 'DELETE') throw new RouteNotFoundError('no such dashboard path');
      await sessions.close(session);
      return jsonResponse(
        200,
        { signedIn: false },
        { 'set-cookie': sessionCookie('', { path: cookiePath, secure: false }, 0) },
      );
    }
    return proxyToApi(mailplane.handle, session, request, path.slice('/api/v1'.length));
  };

  return async (request) => {
    try {
      return withSecurityHeaders(await route(request));
    } catch (error) {
      if (httpErrorRule(error).fault)
        ctx.logger.error('dashboard: the request failed', { error: describeError(error) });
      return withSecurityHeaders(errorResponse(error));
    }
  };
}

/**
 * `mailplane.handler` with the dashboard at `basePath` (default `/dashboard`): the API, the links,
 * health, metrics and the console in one handler, mounted at the root in one line.
 *
 * @example
 * app.use(toExpress(withDashboard(mailplane)));
 * http.createServer(toNodeHandler(withDashboard(mailplane))).listen(3000, '127.0.0.1');
 */
export function withDashboard(mailplane: Mailplane, options: DashboardOptions = {}): MountedHandler {
  const basePath = (options.basePath ?? '/dashboard').replace(/\/+$/, '');
  return mountHandlers([
    { path: basePath, handle: createDashboard(mailplane, { ...options, basePath }) },
    { path: '', handle: mailplane.handler },
  ]);
}
