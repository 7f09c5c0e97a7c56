/**
 * `mailplane/koa`: serve the mailplane router from a Koa 2 or 3 application.
 *
 * @packageDocumentation
 */
import type { Middleware } from 'koa';
import { DEFAULT_BODY_LIMIT } from '../../../src/http/router.js';
import { responseBody, type HttpHandler, type HttpRequest } from '../../../src/http/types.js';
import { BodyTooLargeError, readRawBody, toRouterPath, tooLargeResponse, type BridgeOptions } from '../node/index.js';

/**
 * Koa middleware serving the router under `prefix`; other paths fall through to `next`. A body
 * already parsed by a body-parser middleware (`ctx.request.body`) is used as is.
 *
 * @example
 * app.use(toKoa(mailplane.handle, { prefix: '/api/v1' }));
 */
export function toKoa(handle: HttpHandler, options: BridgeOptions = {}): Middleware {
  const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  return async (ctx, next) => {
    const target = toRouterPath(ctx.url, options.prefix);
    if (!target) {
      await next();
      return;
    }
    const parsedBody = (ctx.request as { body?: unknown }).body;
    const request: HttpRequest = { method: ctx.method, headers: ctx.headers, ...target };
    try {
      if (parsedBody !== undefined) request.body = parsedBody;
      else request.rawBody = await readRawBody(ctx.req, limit);
    } catch (error) {
      if (!(error instanceof BodyTooLargeError)) throw error;
      const response = tooLargeResponse(limit);
      ctx.status = response.status;
      ctx.set(response.headers);
      ctx.body = response.body;
      return;
    }
    const response = await handle(request);
    ctx.status = response.status;
    ctx.set(response.headers);
    ctx.body = responseBody(response);
  };
}
