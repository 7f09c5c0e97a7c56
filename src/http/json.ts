import { randomBytes } from 'node:crypto';
import type { HttpResponse } from './types.js';

/*
 * Node 20 has no JSON.rawJSON, so a bigint cannot be written as a bare number by JSON.stringify.
 * Each bigint is first replaced by a string holding a per-process random marker, then the quoted
 * marker is swapped for the digits. User strings cannot forge the marker: it is unguessable and
 * JSON.stringify would escape any quote inside a string anyway.
 */
const marker = `__mailplane_int_${randomBytes(9).toString('hex')}_`;
const markerPattern = new RegExp(`"${marker}(-?[0-9]+)"`, 'g');

/**
 * JSON.stringify that writes `bigint` values as exact integer literals, so nanosecond timestamps
 * (above 2^53) survive the trip to the client digit for digit.
 */
export function stringifyJson(value: unknown): string {
  let sawBigint = false;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') {
      sawBigint = true;
      return `${marker}${v.toString()}`;
    }
    return v;
  });
  if (text === undefined) return 'null';
  return sawBigint ? text.replace(markerPattern, '$1') : text;
}

/** The headers of every JSON answer of the API: nothing in it may be cached by a proxy. */
export const JSON_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** A JSON response: `body` serialised with {@link stringifyJson}, {@link JSON_HEADERS} plus `extraHeaders`. */
export function jsonResponse(status: number, body: unknown, extraHeaders: Record<string, string> = {}): HttpResponse {
  return { status, headers: { ...JSON_HEADERS, ...extraHeaders }, body: stringifyJson(body) };
}
