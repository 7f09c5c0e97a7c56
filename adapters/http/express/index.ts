/**
 * `mailplane/express`: mount the mailplane router in an Express 4 or 5 application.
 *
 * @packageDocumentation
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { consoleLogger } from '../../../src/context.js';
import { DEFAULT_BODY_LIMIT } from '../../../src/http/router.js';
import { stringifyJson } from '../../../src/http/json.js';
import type { HttpHandler, HttpRequest } from '../../../src/http/types.js';
import {
  BodyReadError,
  badTargetResponse,
  failureResponse,
  readRawBody,
  routerRequest,
  toRouterPath,
  tooLargeResponse,
  writeResponse,
  type BridgeOptions,
} from '../node/index.js';

/** True when a body parser (e.g. `express.json()`) already consumed and parsed the body. */
function alreadyParsed(req: { body?: unknown; _body?: unknown }): boolean {
  return req._body === true || req.body !== undefined;
}

/** A body-parser failure (`type` and a 4xx `status` set by body-parser / raw-body). */
interface ParserError {
  type?: string;
  status?: number;
}

/**
 * Express middleware serving the router. Works whether or not `express.json()` ran first: a parsed
 * body is used as is, otherwise the raw body is read here. The second element answers, as JSON,
 * every error that reaches the mount: body-parser failures (malformed JSON 422, too large 413, other
 * unreadable bodies 400) and anything else (500, logged), instead of Express's HTML error page.
 *
 * @example
 * app.use('/api/v1', toExpress(mailplane.handle));
 */
export function toExpress(handle: HttpHandler, options: BridgeOptions = {}): [RequestHandler, ErrorRequestHandler] {
  const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const logger = options.logger ?? consoleLogger;
  const serve: RequestHandler = (req, res, next) => {
    const target = toRouterPath(req.url, options.prefix);
    if (target.kind === 'outside') {
      next();
      return;
    }
    if (target.kind === 'malformed') {
      writeResponse(res, badTargetResponse(), logger);
      return;
    }
    const parsed = alreadyParsed(req as never);
    const body = parsed ? Promise.resolve(undefined) : readRawBody(req, limit);
    body
      .then((rawBody) => {
        const request: HttpRequest = routerRequest(req.method, req.headers, target);
        if (parsed) request.body = req.body as unknown;
        else request.rawBody = rawBody;
        return handle(request);
      })
      .then(
        (response) => writeResponse(res, response, logger),
        (error: unknown) => writeResponse(res, failureResponse(error, limit, logger), logger),
      );
  };
  const answerErrors: ErrorRequestHandler = (error: ParserError | null | undefined, _req, res, _next) => {
    if (error?.type === 'entity.parse.failed') {
      writeResponse(
        res,
        {
          status: 422,
          headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
          body: stringifyJson({ code: 'MALFORMED_JSON', message: 'the body is not valid JSON' }),
        },
        logger,
      );
    } else if (error?.type === 'entity.too.large') {
      writeResponse(res, tooLargeResponse(limit), logger);
    } else {
      const status = error?.status;
      const unreadable = typeof error?.type === 'string' && typeof status === 'number' && status >= 400 && status < 500;
      writeResponse(res, failureResponse(unreadable ? new BodyReadError(error) : error, limit, logger), logger);
    }
  };
  return [serve, answerErrors];
}
