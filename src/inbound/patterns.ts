/**
 * Route patterns (docs/inbound.md, "Routes"): an exact address, `prefix+*@domain` (a local part that
 * starts with the text before `*`), or `*@domain`, the domain's catch-all. No regular expressions:
 * matching is a comparison, linear in the address, whatever a tenant writes.
 */
import { emailAddressProblem } from '../model/email-address.js';
import { normalizeName } from '../dns/names.js';
import type { InboundPatternKind, InboundRouteRecord } from '../store/inbound-store.js';

/** A pattern as stored. */
export interface ParsedPattern {
  /** The normalised text: lower-case, the domain in its ASCII form. */
  pattern: string;
  kind: InboundPatternKind;
  domain: string;
  /** The local part (`exact`), the prefix before `*` (`prefix`), `''` (`catchAll`). */
  localPart: string;
}

/** The pattern of `text`, or why it is not one. */
export function parsePattern(text: string): { ok: true; value: ParsedPattern } | { ok: false; message: string } {
  const at = text.lastIndexOf('@');
  if (at <= 0) return { ok: false, message: 'must be an address, `prefix*@domain` or `*@domain`' };
  const local = text.slice(0, at).toLowerCase();
  const domain = normalizeName(text.slice(at + 1));
  const star = local.indexOf('*');
  if (star >= 0 && star !== local.length - 1)
    return { ok: false, message: 'may have one `*`, at the end of the part before @' };
  const sample = star >= 0 ? `${local.slice(0, -1) || 'x'}x@${domain}` : `${local}@${domain}`;
  const problem = emailAddressProblem(sample);
  if (problem !== null) return { ok: false, message: problem };
  const kind: InboundPatternKind = local === '*' ? 'catchAll' : star >= 0 ? 'prefix' : 'exact';
  const localPart = kind === 'catchAll' ? '' : kind === 'prefix' ? local.slice(0, -1) : local;
  return { ok: true, value: { pattern: `${local}@${domain}`, kind, domain, localPart } };
}

/**
 * The route that takes mail for `localPart` among `routes` (all on the recipient's domain), in the
 * documented order: the exact address first, then the longest matching prefix, then the catch-all;
 * `undefined` when none matches. The local part is compared lower-cased.
 */
export function matchRoute<R extends Pick<InboundRouteRecord, 'kind' | 'localPart' | 'id'>>(
  routes: readonly R[],
  localPart: string,
): R | undefined {
  const local = localPart.toLowerCase();
  const exact = routes.find((route) => route.kind === 'exact' && route.localPart === local);
  if (exact) return exact;
  let best: R | undefined;
  for (const route of routes) {
    if (route.kind !== 'prefix' || !local.startsWith(route.localPart)) continue;
    if (!best || route.localPart.length > best.localPart.length) best = route;
  }
  return best ?? routes.find((route) => route.kind === 'catchAll');
}
