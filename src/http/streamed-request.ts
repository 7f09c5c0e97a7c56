/**
 * Request bodies that are not read whole: a `text/csv` upload (the suppression import) reaches a
 * route as the bridge's request stream, so a body of a million rows is parsed as it arrives. Every
 * other body is read whole by the bridge, within the router's body limit.
 */
import { PayloadTooLargeError, ValidationError } from '../errors.js';
import type { HeaderMap, HttpRequest } from './types.js';

/** The media type whose bodies the bridges hand over as a stream. */
const STREAMED_MEDIA_TYPE = 'text/csv';

/** The media type of a `content-type` header, lower-cased, without its parameters; `''` when absent. */
export function mediaTypeOf(headers: HeaderMap): string {
  const value = headers['content-type'];
  const first = Array.isArray(value) ? value[0] : value;
  return (first ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Whether a bridge hands this request's body to the router as {@link HttpRequest.bodyStream}. */
export const streamsRequestBody = (headers: HeaderMap): boolean => mediaTypeOf(headers) === STREAMED_MEDIA_TYPE;

/** What a route declares to take its body as a stream (`RouteDefinition.streamedBody`). */
export interface StreamedBodyRule {
  /** The one media type taken, e.g. `text/csv`; another is refused 422 `UNSUPPORTED_MEDIA_TYPE`. */
  mediaType: string;
  /** The largest body, in bytes; more is refused 413 `PAYLOAD_TOO_LARGE`. */
  limitBytes: number;
  /** What the body holds, for the OpenAPI document. */
  description: string;
}

const byteLength = (chunk: Uint8Array | string) =>
  typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;

/**
 * Reads and discards what is left of a stream, so that the answer reaches a client still sending
 * (closing mid-upload would show it a broken pipe instead). A stream that already ended or failed
 * has nothing left.
 */
export async function drainBody(stream: AsyncIterable<unknown> | undefined): Promise<void> {
  if (!stream) return;
  try {
    for await (const chunk of stream) void chunk;
  } catch {
    // the client went away: nothing to wait for
  }
}

/** The declared `content-length`, when there is one. */
function declaredLength(headers: HeaderMap): number | null {
  const value = Number(headers['content-length']);
  return Number.isFinite(value) ? value : null;
}

/**
 * The body of a request as chunks, within `limit` bytes: the bridge's stream, or the body it read
 * or parsed (a framework's text parser gives a string). Past the limit the rest is drained and
 * {@link PayloadTooLargeError} thrown, what was read before having been handed on already.
 */
export async function* bodyChunks(request: HttpRequest, limit: number): AsyncGenerator<Uint8Array | string> {
  const declared = declaredLength(request.headers);
  if (declared !== null && declared > limit) {
    await drainBody(request.bodyStream);
    throw new PayloadTooLargeError(limit);
  }
  const source: Iterable<Uint8Array | string> | AsyncIterable<Uint8Array | string> =
    request.bodyStream ??
    (request.rawBody !== undefined ? [request.rawBody] : typeof request.body === 'string' ? [request.body] : []);
  let size = 0;
  // Not a for-of that could stop early: leaving a node request's iterator destroys the socket.
  const iterator = (Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]()) as
    AsyncIterator<Uint8Array | string> | Iterator<Uint8Array | string>;
  for (;;) {
    const next = await iterator.next();
    if (next.done) return;
    size += byteLength(next.value);
    if (size > limit) {
      await drainBody(request.bodyStream);
      throw new PayloadTooLargeError(limit);
    }
    yield next.value;
  }
}

/** The 422 of a streamed-body route given another media type. */
export function unsupportedMediaType(rule: StreamedBodyRule, request: HttpRequest): ValidationError | null {
  const given = mediaTypeOf(request.headers);
  if (given === rule.mediaType) return null;
  return new ValidationError(
    `the body must be sent as ${rule.mediaType} (Content-Type: ${rule.mediaType}), not ${given === '' ? 'without a content type' : given}`,
    [],
    'UNSUPPORTED_MEDIA_TYPE',
  );
}

/**
 * Reads a streamed body whole for a route that takes JSON (a `text/csv` body sent to it): the
 * text, or {@link PayloadTooLargeError} past `limit`.
 */
export async function readStreamedBody(request: HttpRequest, limit: number): Promise<Uint8Array> {
  const parts: Buffer[] = [];
  for await (const chunk of bodyChunks(request, limit)) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}
