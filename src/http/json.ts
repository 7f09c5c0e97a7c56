import { stringifyJson } from '../model/json.js';
import { StreamedBody } from './streamed-body.js';
import type { HttpResponse } from './types.js';

/** The headers of every JSON answer of the API: nothing in it may be cached by a proxy. */
export const JSON_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
};

/** A JSON response (or, for a {@link StreamedBody}, its streamed chunks): `body` serialised with {@link stringifyJson}, {@link JSON_HEADERS} plus `extraHeaders`. */
export function jsonResponse(status: number, body: unknown, extraHeaders: Record<string, string> = {}): HttpResponse {
  if (body instanceof RawJson) return { status, headers: { ...JSON_HEADERS, ...extraHeaders }, body: body.text };
  if (body instanceof StreamedBody) {
    const headers = { 'content-type': body.contentType, 'cache-control': 'no-store', ...body.headers, ...extraHeaders };
    return { status, headers, body: '', stream: body.chunks };
  }
  return { status, headers: { ...JSON_HEADERS, ...extraHeaders }, body: stringifyJson(body) };
}

/**
 * A route answer that is JSON text already (a stored response replayed byte for byte): a handler
 * returns it as its `body`, and {@link jsonResponse} writes the text as it is.
 */
export class RawJson {
  constructor(
    /** The JSON text. */
    readonly text: string,
  ) {}
}
