/**
 * `mailplane/express`: mount the mailplane router in an Express 4 or 5 application.
 *
 * @packageDocumentation
 * @module mailplane/express
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { consoleLogger } from '../../../src/logging/logger.js';
import { DEFAULT_BODY_LIMIT } from '../../../src/http/router.js';
import { MailplaneError } from '../../../src/errors.js';
import { servesPath } from '../../../src/http/mount.js';
import { streamsRequestBody } from '../../../src/http/streamed-request.js';
import type { HttpHandler, HttpRequest } from '../../../src/http/types.js';
import {
  BodyReadError,
  BodyTooLargeError,
  badTargetResponse,
  failureResponse,
  requestHeaders,
  routerRequest,
  toRouterPath,
  withRequestBody,
  writeResponse,
  type BridgeOptions,
} from '../node/index.js';

/**
 * True when a body parser (e.g. `express.json()`) already consumed and parsed the body. A parser
 * that skipped a `text/csv` body may still have set `req.body = {}` (body-parser 1.x): such a body
 * is unread, and streamed.
 */
function alreadyParsed(req: { body?: unknown; _body?: unknown; headers: HttpRequest['headers'] }): boolean {
  if (streamsRequestBody(req.headers)) return req._body === true;
  return req._body === true || req.body !== undefined;
}

/** A body-parser failure (`type` and a 4xx `status` set by body-parser / raw-body). */
interface ParserError {
  type?: string;
  status?: number;
}

/**
 * The mailplane error a body-parser failure stands for: malformed JSON 422 (as the router answers
 * it, without `details`), too large 413, another unreadable body 400; anything else is returned as
 * it is (a 500 unless it is a mailplane error).
 */
function parserError(error: ParserError | null | undefined, limit: number): unknown {
  if (error?.type === 'entity.parse.failed')
    return new MailplaneError('invalid', 'MALFORMED_JSON', 'the body is not valid JSON');
  if (error?.type === 'entity.too.large') return new BodyTooLargeError(limit);
  const status = error?.status;
  const unreadable = typeof error?.type === 'string' && typeof status === 'number' && status >= 400 && status < 500;
  return unreadable ? new BodyReadError(error) : error;
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
    // A path the handler does not serve (outside `mailplane.handler`'s mounts) is the host's.
    if (target.kind === 'outside' || (target.kind === 'route' && !servesPath(handle, target.path))) {
      next();
      return;
    }
    if (target.kind === 'malformed') {
      writeResponse(res, badTargetResponse(), logger);
      return;
    }
    const request: HttpRequest = routerRequest(req.method, requestHeaders(req), target);
    // A body parser's result (express.json(), or express.text() for CSV) is used as it is.
    const withBody = alreadyParsed(req as never)
      ? Promise.resolve({ ...request, body: req.body as unknown })
      : withRequestBody(request, req, limit);
    withBody.then(handle).then(
      (response) => writeResponse(res, response, logger),
      (error: unknown) => writeResponse(res, failureResponse(error, logger), logger),
    );
  };
  const answerErrors: ErrorRequestHandler = (error: ParserError | null | undefined, _req, res, _next) => {
    writeResponse(res, failureResponse(parserError(error, limit), logger), logger);
  };
  return [serve, answerErrors];
}
