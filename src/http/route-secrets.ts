/**
 * The secrets of an answer hidden from a caller that may see a secret only once: the dashboard
 * shows a sub-account's key when it is created, never again. The decision is made on the route the
 * router matched, so no spelling of the path (`%33`, a trailing slash) gets around it.
 */
import type { AnyRoute } from './route.js';
import type { HttpRequest } from './types.js';

/**
 * The body to answer: `body` itself, or, for a request marked `hideStoredSecrets` to a route that
 * declares `secrets: { origin: 'stored' }`, a copy with those members `null` at any depth. Such a
 * route must answer plain JSON data: anything else (replayed text, a stream) cannot be checked, and
 * throws rather than pass a secret through.
 */
export function withStoredSecretsHidden(route: AnyRoute, request: HttpRequest, body: unknown): unknown {
  if (request.hideStoredSecrets !== true || route.secrets?.origin !== 'stored') return body;
  return nulled(body, new Set(route.secrets.names));
}

function nulled(value: unknown, names: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => nulled(item, names));
  if (value === null || typeof value !== 'object') return value;
  if (Object.getPrototypeOf(value) !== Object.prototype) {
    throw new Error('an answer with stored secrets must be plain JSON data to hide them');
  }
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [key, names.has(key) ? null : nulled(member, names)]),
  );
}
