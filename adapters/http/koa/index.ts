/**
 * `mailplane/koa`: serve the mailplane router from a Koa 2 or 3 application.
 *
 * @packageDocumentation
 * @module mailplane/koa
 */
import { Readable } from 'node:stream';
import type { Context, Middleware } from 'koa';
import { consoleLogger, type Logger } from '../../../src/logging/logger.js';
import { DEFAULT_BODY_LIMIT } from '../../../src/http/router.js';
import { servesPath } from '../../../src/http/mount.js';
import { streamsRequestBody } from '../../../src/http/streamed-request.js';
import { responseBody, type HttpHandler, type HttpRequest, type HttpResponse } from '../../../src/http/types.js';
import {
  badTargetResponse,
  describeError,
  failureResponse,
  internalErrorResponse,
  requestHeaders,
  routerRequest,
  toRouterPath,
  withRequestBody,
  type BridgeOptions,
} from '../node/index.js';

/** Sets `response` on the Koa context; Koa writes it once the middleware chain returns. */
function setResponse(ctx: Context, response: HttpResponse): void {
  ctx.status = response.status;
  ctx.set(response.headers);
  // A streamed answer is a Readable: Koa pipes it, waiting for the socket, and destroys it on failure.
  ctx.body = response.stream ? Readable.from(response.stream) : responseBody(response);
}

/**
 * Sets `response`, or a 500 JSON error when Koa or node refuses it (an invalid status, a header value
 * with a line break or a character above U+00FF): headers already set from it are removed first.
 */
function applyResponse(ctx: Context, response: HttpResponse, logger: Pick<Logger, 'error'>): void {
  try {
    setResponse(ctx, response);
  } catch (error) {
    logger.error('http bridge: the response could not be written', { error: describeError(error) });
    for (const name of Object.keys(response?.headers ?? {})) {
      try {
        ctx.remove(name);
      } catch {
        // a name node refuses was never set
      }
    }
    setResponse(ctx, internalErrorResponse());
  }
}

/**
 * Koa middleware serving the router under `prefix`; other paths fall through to `next`. A body
 * already parsed by a body-parser middleware (`ctx.request.body`) is used as is. Every failure on
 * the way (unreadable body, a handler that throws, a response node refuses) is answered as JSON
 * here, never left to Koa's plain-text error page.
 *
 * @example
 * app.use(toKoa(mailplane.handle, { prefix: '/api/v1' }));
 */
export function toKoa(handle: HttpHandler, options: BridgeOptions = {}): Middleware {
  const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const logger = options.logger ?? consoleLogger;
  return async (ctx, next) => {
    const target = toRouterPath(ctx.url, options.prefix);
    // A path the handler does not serve (outside `mailplane.handler`'s mounts) is the host's.
    if (target.kind === 'outside' || (target.kind === 'route' && !servesPath(handle, target.path))) {
      await next();
      return;
    }
    if (target.kind === 'malformed') {
      applyResponse(ctx, badTargetResponse(), logger);
      return;
    }
    let response: HttpResponse;
    try {
      // A body parser that skipped a `text/csv` upload may still have set `{}`: an unread body is streamed.
      const unreadStream = streamsRequestBody(ctx.req.headers) && !ctx.req.readableEnded;
      const parsedBody = unreadStream ? undefined : (ctx.request as { body?: unknown }).body;
      const request: HttpRequest = routerRequest(ctx.method, requestHeaders(ctx.req), target);
      response = await handle(
        parsedBody !== undefined ? { ...request, body: parsedBody } : await withRequestBody(request, ctx.req, limit),
      );
    } catch (error) {
      response = failureResponse(error, logger);
    }
    applyResponse(ctx, response, logger);
  };
}
