/**
 * `mailplane/node`: serve the mailplane router with plain node:http.
 *
 * Every bridge answers every request it takes: a failure while reading the request, in the handler,
 * or while writing the response (an invalid header value, a bad status) becomes a JSON error for
 * that request alone, or, once bytes are on the wire, the end of that one connection. Nothing is
 * thrown out of a bridge, so no request can stop the process.
 *
 * @packageDocumentation
 * @module mailplane/node
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { STATUS_CODES, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { consoleLogger, type Logger } from '../../../src/logging/logger.js';
import { DEFAULT_BODY_LIMIT } from '../../../src/http/router.js';
import { BadRequestError, PayloadTooLargeError, RouteNotFoundError } from '../../../src/errors.js';
import { describeError } from '../../../src/logging/describe-error.js';
import { errorResponse, httpErrorRule } from '../../../src/http/errors.js';
import { streamsRequestBody } from '../../../src/http/streamed-request.js';
import { responseBody, type HttpHandler, type HttpRequest, type HttpResponse } from '../../../src/http/types.js';

/** Options shared by the HTTP bridges. */
export interface BridgeOptions {
  /** Path prefix the router is mounted under (e.g. `/api/v1`); requests outside it get 404. */
  prefix?: string;
  /** Largest body read from the socket, in bytes; larger bodies get 413 without being buffered. */
  bodyLimitBytes?: number;
  /** Where failures inside the bridge are reported (default: one JSON line on stderr). */
  logger?: Pick<Logger, 'error'>;
}

/** Thrown by {@link readRawBody} when the body exceeds the limit: answered 413 `PAYLOAD_TOO_LARGE`. */
export class BodyTooLargeError extends PayloadTooLargeError {
  constructor(readonly limit: number) {
    super(limit);
  }
}

/**
 * Thrown by {@link readRawBody} when the request stream fails (the client aborted, a bad chunk):
 * answered 400 `BAD_REQUEST_BODY`.
 */
export class BodyReadError extends BadRequestError {
  constructor(cause: unknown) {
    super('BAD_REQUEST_BODY', 'the request body could not be read', cause);
  }
}

/**
 * Reads a request body into one buffer, refusing more than `limit` bytes. An oversized body is
 * rejected as soon as it is known, and the rest of it is read and discarded, not buffered: closing
 * the socket mid-upload would make clients see a broken pipe instead of the 413.
 */
export function readRawBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const refuse = () => {
      refused = true;
      chunks.length = 0;
      reject(new BodyTooLargeError(limit));
    };
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) refuse();
    request.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > limit) refuse();
      else chunks.push(chunk);
    });
    request.once('end', () => {
      if (!refused) resolve(Buffer.concat(chunks));
    });
    request.once('error', (error) => {
      if (!refused) reject(new BodyReadError(error));
    });
  });
}

/**
 * `request` with the body of `req`: a `text/csv` upload as the stream itself (the router's route reads
 * it as it arrives, within its own limit: src/http/streamed-request.ts), any other body read whole
 * within `limit` ({@link readRawBody}).
 */
export async function withRequestBody(request: HttpRequest, req: IncomingMessage, limit: number): Promise<HttpRequest> {
  if (streamsRequestBody(req.headers)) return { ...request, bodyStream: req };
  return { ...request, rawBody: await readRawBody(req, limit) };
}

/** The 413 response the bridges answer without reading the rest of an oversized body. */
export const tooLargeResponse = (limit: number): HttpResponse => errorResponse(new PayloadTooLargeError(limit));

/** The 404 of a request outside the bridge's prefix (node:http has nothing to fall through to). */
export const notFoundResponse = (): HttpResponse => errorResponse(new RouteNotFoundError('not found'));

/** The 400 of a request line whose target is no URL (e.g. `GET http://[/api/v1 HTTP/1.1`). */
export const badTargetResponse = (): HttpResponse =>
  errorResponse(new BadRequestError('BAD_REQUEST_TARGET', 'the request target is not a valid URL or path'));

/**
 * The 500 of a failure inside mailplane or the bridge; the failure itself is logged, never sent.
 * (Whatever is no mailplane error is answered as kind `internal`.)
 */
export const internalErrorResponse = (): HttpResponse => errorResponse(undefined);

/** One line for the log of a failure (src/http/errors.ts), for the sibling bridges. */
export { describeError };

/**
 * The response for a failure while a bridge served a request, as the router answers the same error:
 * a {@link BodyTooLargeError} 413, a {@link BodyReadError} 400, a mailplane error its status, and
 * anything else a 500 whose cause is logged (without request data).
 */
export function failureResponse(error: unknown, logger: Pick<Logger, 'error'>): HttpResponse {
  if (httpErrorRule(error).fault) logger.error('http bridge: the request failed', { error: describeError(error) });
  return errorResponse(error);
}

/** Where a request lands relative to a bridge's prefix. */
export type RouterTarget =
  /** Under the prefix: the router's path (relative to the prefix) and the query. */
  | { kind: 'route'; path: string; query: URLSearchParams }
  /** Outside the prefix (or `*`): not this bridge's request. */
  | { kind: 'outside' }
  /** Not a URL at all: answered 400 `BAD_REQUEST_TARGET`. */
  | { kind: 'malformed' };

const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:/i;

/** Parses a request target (RFC 9112 §3.2) without throwing; `null` when it is no http(s) URL. */
function parseTarget(url: string): URL | null {
  try {
    // origin-form is appended to a fixed origin rather than resolved against it, so `//x/y` stays a
    // path instead of naming the host `x`.
    if (url.startsWith('/')) return new URL(`http://localhost${url}`);
    // absolute-form (what proxies send): served by its path; the host in it is not ours to judge.
    if (!ABSOLUTE_FORM.test(url)) return null;
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * Splits a request target (origin-form `/a?b` or absolute-form `http://host/a?b`) into the router's
 * path, relative to `prefix`, and query. It never throws: a target that is no URL is `malformed`.
 */
export function toRouterPath(url: string, prefix = ''): RouterTarget {
  if (url === '*') return { kind: 'outside' };
  const parsed = parseTarget(url);
  if (!parsed) return { kind: 'malformed' };
  let path = parsed.pathname;
  if (prefix !== '') {
    const base = prefix.replace(/\/$/, '');
    if (path !== base && !path.startsWith(`${base}/`)) return { kind: 'outside' };
    path = path.slice(base.length) || '/';
  }
  return { kind: 'route', path, query: parsed.searchParams };
}

/**
 * Ends a response that failed: a 500 JSON error when no byte was sent yet (headers set so far are
 * dropped, so a bad one cannot fail again), else the end of this one connection.
 */
function answerFailure(res: ServerResponse, error: unknown, logger: Pick<Logger, 'error'>): void {
  logger.error('http bridge: the response could not be written', { error: describeError(error) });
  if (!res.headersSent) {
    try {
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      const fallback = internalErrorResponse();
      // the reason phrase is explicit: the failed writeHead may have left its own (`Found`) behind
      res.writeHead(fallback.status, STATUS_CODES[fallback.status]!, fallback.headers);
      res.end(fallback.body);
      return;
    } catch {
      // fall through: the socket is all that is left to close
    }
  }
  res.destroy();
}

/**
 * Writes a router response to a node:http response. It never throws: a response node refuses (a
 * header value with a line break or a character above U+00FF, an invalid status) is logged and
 * replaced by a 500 JSON error, or closes the connection if the headers were already sent.
 */
export function writeResponse(
  res: ServerResponse,
  response: HttpResponse,
  logger: Pick<Logger, 'error'> = consoleLogger,
): void {
  try {
    res.writeHead(response.status, response.headers);
    if (response.stream) {
      // pipeline waits for the socket to drain before pulling the next chunk, and destroys both on failure.
      pipeline(Readable.from(response.stream), res).catch((error: unknown) => {
        logger.error('streamed response failed', { error: describeError(error) });
      });
      return;
    }
    res.end(responseBody(response));
  } catch (error) {
    answerFailure(res, error, logger);
  }
}

/**
 * The request's headers as the router reads them: node's `headers`, except that a header the client
 * sent more than once is the array of its values. node joins `Idempotency-Key: a` and
 * `Idempotency-Key: b` into `"a, b"`, and keeps only the first of a repeated `Authorization` or
 * `Host`; as an array, a header that must be given once is refused as repeated
 * (src/http/headers.ts) instead of being read as one value.
 */
export function requestHeaders(
  req: Pick<IncomingMessage, 'headers' | 'rawHeaders' | 'headersDistinct'>,
): HttpRequest['headers'] {
  const seen = new Set<string>();
  let headers: HttpRequest['headers'] = req.headers;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    if (!seen.has(name)) {
      seen.add(name);
      continue;
    }
    // Copied on the first repeat: node's own object (which the application's middleware shares) stays as it is.
    if (headers === req.headers) headers = { ...req.headers };
    headers[name] = req.headersDistinct[name];
  }
  return headers;
}

/** The request the router sees: method, headers ({@link requestHeaders}), path and query, and the body read by the bridge. */
export function routerRequest(
  method: string,
  headers: HttpRequest['headers'],
  target: { path: string; query: URLSearchParams },
): HttpRequest {
  return { method, headers, path: target.path, query: target.query };
}

/**
 * Adapts the router to a node:http request listener.
 *
 * @example
 * http.createServer(toNodeHandler(mailplane.handle, { prefix: '/api/v1' })).listen(3000);
 */
export function toNodeHandler(handle: HttpHandler, options: BridgeOptions = {}): RequestListener {
  const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const logger = options.logger ?? consoleLogger;
  return (req, res) => {
    const target = toRouterPath(req.url ?? '/', options.prefix);
    if (target.kind !== 'route') {
      writeResponse(res, target.kind === 'outside' ? notFoundResponse() : badTargetResponse(), logger);
      return;
    }
    withRequestBody(routerRequest(req.method ?? 'GET', requestHeaders(req), target), req, limit)
      .then(handle)
      .then(
        (response) => writeResponse(res, response, logger),
        (error: unknown) => writeResponse(res, failureResponse(error, logger), logger),
      );
  };
}
