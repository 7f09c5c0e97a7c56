/**
 * The dashboard's session cookie: reading it from a `Cookie` header and writing the `Set-Cookie`
 * that opens or ends it.
 */
import type { HeaderMap } from '../http/types.js';

/** The cookie's name. */
export const SESSION_COOKIE = 'mailplane_dashboard';

/** The value of cookie `name` in the request's `Cookie` header(s), or `undefined`. */
export function readCookie(headers: HeaderMap, name: string): string | undefined {
  const raw = headers.cookie;
  const lines = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  for (const line of lines) {
    for (const part of line.split(';')) {
      const eq = part.indexOf('=');
      if (eq < 0) continue;
      if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
    }
  }
  return undefined;
}

/** Where and how the session cookie is set. */
export interface CookieScope {
  /** The dashboard's mount path: the cookie goes to nothing else on the host. */
  path: string;
  /** Adds `Secure` (the page was served over TLS). */
  secure: boolean;
}

/**
 * The `Set-Cookie` value of a session: `HttpOnly` (no script reads it), `SameSite=Strict` (no other
 * site's page sends it), `Secure` over TLS, scoped to the dashboard's path, and `maxAgeSeconds`
 * long (0 ends it).
 */
export function sessionCookie(value: string, scope: CookieScope, maxAgeSeconds: number): string {
  const parts = [
    `${SESSION_COOKIE}=${value}`,
    `Path=${scope.path}`,
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${maxAgeSeconds}`,
  ];
  if (scope.secure) parts.push('Secure');
  return parts.join('; ');
}
