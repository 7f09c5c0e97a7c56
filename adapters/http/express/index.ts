/**
 * `mailplane/express`: mount the mailplane router in an Express 4 or 5 application.
 *
 * @packageDocumentation
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DEFAULT_BODY_LIMIT } from '../../../src/http/router.js';
import { stringifyJson } from '../../../src/http/json.js';
import type { HttpHandler, HttpRequest } from '../../../src/http/types.js';
import {
  BodyTooLargeError,
  readRawBody,
  toRouterPath,
  tooLargeResponse,
  writeResponse,
  type BridgeOptions,
} from '../node/index.js';

/** True when a body parser (e.g. `express.json()`) already consumed and parsed the body. */
function alreadyParsed(req: { body?: unknown; _body?: unknown }): boolean {
  return req._body === true || req.body !== undefined;
}

/**
 * Express middleware serving the router. Works whether or not `express.json()` ran first: a parsed
 * body is used as is, otherwise the raw body is read here. The second element maps body-parser
 * failures that happened before it (malformed JSON, too large) to mailplane's JSON errors.
 *
 * @example
 * app.use('/api/v1', toExpress(mailplane.handle));
 */
export function toExpress(handle: HttpHandler, options: BridgeOptions = {}): [RequestHandler, ErrorRequestHandler] {
  const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const serve: RequestHandler = (req, res, next) => {
    const target = toRouterPath(req.url, options.prefix);
    if (!target) {
      next();
      return;
    }
    const parsed = alreadyParsed(req as never);
    const body = parsed ? Promise.resolve(undefined) : readRawBody(req, limit);
    body
      .then((rawBody) => {
        const request: HttpRequest = { method: req.method, headers: req.headers, ...target };
        if (parsed) request.body = req.body as unknown;
        else request.rawBody = rawBody;
        return handle(request);
      })
      .then(
        (response) => writeResponse(res, response),
        (error: unknown) => {
          if (error instanceof BodyTooLargeError) writeResponse(res, tooLargeResponse(limit));
          else next(error);
        },
      );
  };
  const mapParserErrors: ErrorRequestHandler = (error: { type?: string }, _req, res, next) => {
    if (error?.type === 'entity.parse.failed') {
      writeResponse(res, {
        status: 422,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: stringifyJson({ code: 'MALFORMED_JSON', message: 'the body is not valid JSON' }),
      });
    } else if (error?.type === 'entity.too.large') {
      writeResponse(res, tooLargeResponse(limit));
    } else next(error);
  };
  return [serve, mapParserErrors];
}
