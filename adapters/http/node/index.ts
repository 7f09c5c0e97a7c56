/**
 * `mailplane/node`: serve the mailplane router with plain node:http.
 *
 * @packageDocumentation
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { DEFAULT_BODY_LIMIT } from '../../../src/http/router.js';
import { stringifyJson } from '../../../src/http/json.js';
import { responseBody, type HttpHandler, type HttpRequest, type HttpResponse } from '../../../src/http/types.js';

/** Options shared by the HTTP bridges. */
export interface BridgeOptions {
  /** Path prefix the router is mounted under (e.g. `/api/v1`); requests outside it get 404. */
  prefix?: string;
  /** Largest body read from the socket, in bytes; larger bodies get 413 without being buffered. */
  bodyLimitBytes?: number;
}

/** Thrown by {@link readRawBody} when the body exceeds the limit. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`);
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
      if (!refused) reject(error);
    });
  });
}

/** The 413 response the bridges answer without reading the rest of an oversized body. */
export function tooLargeResponse(limit: number): HttpResponse {
  return {
    status: 413,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: stringifyJson({ code: 'PAYLOAD_TOO_LARGE', message: `request body exceeds the limit of ${limit} bytes` }),
  };
}

/** Splits a request URL into the router's path (relative to `prefix`) and query; `null` when outside it. */
export function toRouterPath(url: string, prefix = ''): { path: string; query: URLSearchParams } | null {
  const parsed = new URL(url, 'http://localhost');
  let path = parsed.pathname;
  if (prefix !== '') {
    const base = prefix.replace(/\/$/, '');
    if (path !== base && !path.startsWith(`${base}/`)) return null;
    path = path.slice(base.length) || '/';
  }
  return { path, query: parsed.searchParams };
}

/** Writes a router response to a node:http response. */
export function writeResponse(res: ServerResponse, response: HttpResponse): void {
  res.writeHead(response.status, response.headers);
  res.end(responseBody(response));
}

/**
 * Adapts the router to a node:http request listener.
 *
 * @example
 * http.createServer(toNodeHandler(mailplane.handle, { prefix: '/api/v1' })).listen(3000);
 */
export function toNodeHandler(handle: HttpHandler, options: BridgeOptions = {}): RequestListener {
  const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  return (req, res) => {
    const target = toRouterPath(req.url ?? '/', options.prefix);
    if (!target) {
      writeResponse(res, {
        status: 404,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: stringifyJson({ code: 'ROUTE_NOT_FOUND', message: 'not found' }),
      });
      return;
    }
    readRawBody(req, limit)
      .then((rawBody) => {
        const request: HttpRequest = { method: req.method ?? 'GET', headers: req.headers, rawBody, ...target };
        return handle(request);
      })
      .then(
        (response) => writeResponse(res, response),
        (error: unknown) => {
          if (error instanceof BodyTooLargeError) writeResponse(res, tooLargeResponse(limit));
          else res.destroy(error instanceof Error ? error : undefined);
        },
      );
  };
}
