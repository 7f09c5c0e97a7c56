/**
 * Reading request headers from a {@link HeaderMap}. The bridges present a header the client sent
 * more than once as the array of its values (adapters/http/node `requestHeaders`), so a header
 * that must be given once is refused when repeated instead of being read as one joined or first value.
 */
import { ValidationError } from '../errors.js';
import type { HeaderMap } from './types.js';

/**
 * The value of a header that must be given once, `undefined` when absent; `label` names it in the
 * error (e.g. `X-Account-ApiKey`). Given twice or more: 422 `HEADER_REPEATED`, whatever the values,
 * as a second copy could be read differently by a proxy in front.
 */
export function singleHeader(headers: HeaderMap, name: string, label = name): string | undefined {
  const value = headers[name];
  if (!Array.isArray(value)) return value;
  if (value.length > 1)
    throw new ValidationError(
      `give the ${label} header once`,
      [{ path: label, message: 'repeated' }],
      'HEADER_REPEATED',
    );
  return value[0];
}

/**
 * The value of a list header (`If-None-Match`), or of one that is only recorded (`User-Agent`): its
 * repeated lines joined with `, ` as RFC 9110 §5.3 allows.
 */
export function listHeader(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? (value.length === 0 ? undefined : value.join(', ')) : value;
}
