/** A header map as every Node HTTP stack presents it: lower-case names. */
export type HeaderMap = Record<string, string | string[] | undefined>;

/**
 * A framework-neutral HTTP request. Bridges fill it from node:http, Express or Koa.
 * Give one of `body` (already parsed JSON), `rawBody` (the bytes as received) or `bodyStream`.
 */
export interface HttpRequest {
  /** Upper-case method, e.g. `POST`. */
  method: string;
  /** Path relative to the mount point, starting with `/`, e.g. `/account/subaccount/12`. */
  path: string;
  /** Request headers with lower-case names. */
  headers: HeaderMap;
  /** Query-string parameters; a repeated parameter keeps its first value. */
  query: URLSearchParams;
  /** The parsed JSON body, when a framework already parsed it. */
  body?: unknown;
  /** The raw body, when nothing parsed it yet; the router parses it as JSON. */
  rawBody?: string | Uint8Array;
  /**
   * The body not read yet, as the bridge receives it: set instead of `rawBody` for the media types
   * routes read as a stream (`text/csv`, src/http/streamed-request.ts). The router reads off what a
   * route leaves of it before answering.
   */
  bodyStream?: AsyncIterable<Uint8Array>;
  /**
   * Set by the dashboard on the calls it makes for a browser: the answer of a route that reads
   * secrets made earlier (a sub-account's key and SMTP passwords) has them as `null`, whichever
   * spelling of the path reached the route. The bridges never set it.
   */
  hideStoredSecrets?: boolean;
}

/** A framework-neutral HTTP response: the body is already serialised. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /**
   * How `body` is to be written: `'utf8'` text (the default), or `'base64'` for bytes (the
   * open-tracking image), which the bridges decode before writing.
   */
  bodyEncoding?: 'utf8' | 'base64';
  /**
   * When set, the answer's body: chunks the bridge writes in order after the headers, waiting for
   * the client to take each one (`body` is then empty). A failure mid-way closes the connection,
   * as the status is already sent. Bytes are written as they are (a received message's raw copy).
   */
  stream?: AsyncIterable<string | Uint8Array>;
}

/** The bytes (or text) a bridge writes for `response`. */
export function responseBody(response: HttpResponse): string | Buffer {
  return response.bodyEncoding === 'base64' ? Buffer.from(response.body, 'base64') : response.body;
}

/** The core router: one function from request to response. It never throws. */
export type HttpHandler = (request: HttpRequest) => Promise<HttpResponse>;
