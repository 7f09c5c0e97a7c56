/**
 * Exact-integer JSON: the one serialiser of the API's bodies (src/http/json.ts) and of webhook
 * payloads, so a nanosecond timestamp reads the same in both.
 */
import { randomBytes } from 'node:crypto';

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
