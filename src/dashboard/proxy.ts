/**
 * The dashboard's same-origin path to the API: `<mount>/api/v1/...` is the API route `...`, called
 * with the session's key, so the browser never holds a key and can read nothing the key could not.
 */
import type { HttpHandler, HttpRequest, HttpResponse } from '../http/types.js';
import { ACCOUNT_KEY_HEADER, SUBACCOUNT_KEY_HEADER } from '../http/auth.js';
import { errorResponse } from '../http/errors.js';
import { singleHeader } from '../http/headers.js';
import { MailplaneError, UnauthorizedError } from '../errors.js';
import type { OpenSession } from './sessions.js';

/** The request header with which an account session acts on a sub-account's own paths (domains). */
export const ACT_AS_HEADER = 'x-dashboard-subaccount';

/** The request headers passed on to the API; cookies, keys and the rest stay behind. */
const FORWARDED_HEADERS = ['content-type', 'accept', 'user-agent', 'x-forwarded-for', 'x-request-id'];

/** The key header and key for a call to `path` in this session. */
async function keyFor(
  api: HttpHandler,
  session: OpenSession,
  request: HttpRequest,
  path: string,
): Promise<[string, string]> {
  if (session.kind === 'subaccount') return [SUBACCOUNT_KEY_HEADER, session.apiKey];
  const id = singleHeader(request.headers, ACT_AS_HEADER, 'X-Dashboard-Subaccount');
  if (id === undefined || !path.startsWith('/subaccount')) return [ACCOUNT_KEY_HEADER, session.apiKey];
  if (!/^[1-9]\d{0,15}$/.test(id))
    throw new MailplaneError('invalid', 'INVALID_SUBACCOUNT_ID', `${ACT_AS_HEADER} must be a sub-account id`);
  // The account reads its sub-account's key through the API, as any client of the account key can.
  const found = await api({
    method: 'GET',
    path: `/account/subaccount/${id}`,
    headers: { [ACCOUNT_KEY_HEADER]: session.apiKey },
    query: new URLSearchParams(),
  });
  if (found.status !== 200) throw Object.assign(new Error('sub-account read failed'), { response: found });
  const apiKey = (JSON.parse(found.body) as { apiKey?: unknown }).apiKey;
  if (typeof apiKey !== 'string')
    throw new UnauthorizedError('SUBACCOUNT_KEY_UNAVAILABLE', 'the sub-account has no key the account can read');
  return [SUBACCOUNT_KEY_HEADER, apiKey];
}

/**
 * Calls the API route `path` for the session, with the browser's body and query and only the
 * headers in {@link FORWARDED_HEADERS}; answers as the API does.
 */
export async function proxyToApi(
  api: HttpHandler,
  session: OpenSession,
  request: HttpRequest,
  path: string,
): Promise<HttpResponse> {
  let key: [string, string];
  try {
    key = await keyFor(api, session, request, path);
  } catch (error) {
    const response = (error as { response?: HttpResponse }).response;
    return response ?? errorResponse(error);
  }
  const headers: HttpRequest['headers'] = { [key[0]]: key[1] };
  for (const name of FORWARDED_HEADERS) if (request.headers[name] !== undefined) headers[name] = request.headers[name];
  // The router hides a sub-account's key and SMTP passwords on every route that reads them again
  // (decided on the route it matched, not on this path's spelling): the browser sees them once, when made.
  const forwarded: HttpRequest = {
    method: request.method,
    path,
    headers,
    query: request.query,
    hideStoredSecrets: true,
  };
  if (request.body !== undefined) forwarded.body = request.body;
  else if (request.rawBody !== undefined) forwarded.rawBody = request.rawBody;
  return api(forwarded);
}
