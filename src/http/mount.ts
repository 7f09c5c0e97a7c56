/**
 * Several handlers behind one: each mounted at a path, so that a host mounts mailplane with one
 * line per framework (`mailplane.handler`, docs/library.md). The bridges ask {@link MountedHandler.serves}
 * and let every other path fall through to the host's own routes.
 */
import { RouteNotFoundError } from '../errors.js';
import { errorResponse } from './errors.js';
import { requestIdOf } from './router.js';
import type { HttpHandler, HttpResponse } from './types.js';

/** One handler and where it answers. */
export interface Mount {
  /**
   * The path it is mounted at, without a trailing `/` (`''` for the root). The handler sees the
   * path below it (`/api/v1/account` reaches it as `/account`), unless `exact` says otherwise.
   */
  path: string;
  handle: HttpHandler;
  /** Only `path` itself, given to the handler as it is (health, metrics). */
  exact?: boolean;
}

/** An {@link HttpHandler} that knows which paths it serves. */
export interface MountedHandler extends HttpHandler {
  /** Whether a request at `path` is this handler's; the Express and Koa bridges pass the others on. */
  serves(path: string): boolean;
}

/** Whether a handler serves a path: a {@link MountedHandler} says, any other serves every path. */
export function servesPath(handle: HttpHandler, path: string): boolean {
  const serves = (handle as Partial<MountedHandler>).serves;
  return typeof serves === 'function' ? serves(path) : true;
}

/** `response` carrying the request's id, unless it has one (the API router sets its own). */
export function withRequestId(response: HttpResponse, header: string | string[] | undefined): HttpResponse {
  if (response.headers['x-request-id'] !== undefined) return response;
  return { ...response, headers: { ...response.headers, 'x-request-id': requestIdOf(header) } };
}

/** The path the mount gives its handler, or null when `path` is not under it. */
function below(mount: Mount, path: string): string | null {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  if (mount.exact) return trimmed === mount.path ? path : null;
  if (mount.path === '') return servesPath(mount.handle, path) ? path : null;
  if (trimmed === mount.path) return '/';
  return path.startsWith(`${mount.path}/`) ? path.slice(mount.path.length) : null;
}

/**
 * One handler answering at each mount's path (the first that matches); any other path is `404
 * ROUTE_NOT_FOUND`. Every answer carries `X-Request-Id`.
 *
 * @example
 * const handle = mountHandlers([{ path: '/api/v1', handle: api }, { path: '/healthz', handle: health, exact: true }]);
 */
export function mountHandlers(mounts: readonly Mount[]): MountedHandler {
  const find = (path: string) => {
    for (const mount of mounts) {
      const inner = below(mount, path);
      if (inner !== null) return { mount, inner };
    }
    return null;
  };
  const handle = async (request: Parameters<HttpHandler>[0]): Promise<HttpResponse> => {
    const found = find(request.path);
    const response = found
      ? await found.mount.handle({ ...request, path: found.inner })
      : errorResponse(new RouteNotFoundError(`nothing is served at ${request.path}`));
    return withRequestId(response, request.headers['x-request-id']);
  };
  return Object.assign(handle, { serves: (path: string) => find(path) !== null });
}
