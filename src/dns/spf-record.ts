import { normalizeName } from './names.js';
import { clip } from './tag-list.js';

/** True when a TXT value is an SPF record (RFC 7208 §4.5: exactly `v=spf1`, then a space or the end). */
export function looksLikeSpf(text: string): boolean {
  return /^v=spf1(\s|$)/i.test(text.trim());
}

/** Whether an SPF record authorises the given include, and if not, why. */
export type SpfIncludeResult = { ok: true } | { ok: false; error: string };

// Mechanisms and modifiers that cost a DNS lookup at the receiver (RFC 7208 §4.6.4: at most 10).
const LOOKUP_TERMS = /^[+\-~?]?(include:|a$|a[:/]|mx$|mx[:/]|ptr$|ptr:|exists:|redirect=)/i;

/**
 * Checks that an SPF record sends mail for `include` to a pass: an `include:<include>` with no
 * qualifier or `+` that comes before any `all` (terms after `all` are never evaluated), or a
 * `redirect=<include>` in a record without `all`. Also refuses a record that already needs more
 * than 10 DNS lookups at its top level, which receivers treat as a permanent error.
 */
export function checkSpfInclude(record: string, include: string): SpfIncludeResult {
  const wanted = normalizeName(include);
  const terms = record.trim().split(/\s+/).slice(1);
  const lookups = terms.filter((term) => LOOKUP_TERMS.test(term)).length;
  if (lookups > 10) return { ok: false, error: `it needs ${lookups} DNS lookups, more than the 10 receivers allow` };
  let allSeen: string | null = null;
  for (const term of terms) {
    const include = /^([+\-~?]?)include:(.+)$/i.exec(term);
    if (include && normalizeName(include[2]!) === wanted) {
      if (allSeen)
        return {
          ok: false,
          error: `include:${wanted} comes after ${allSeen}, where receivers never reach it; move it before ${allSeen}`,
        };
      const qualifier = include[1] ?? '';
      if (qualifier !== '' && qualifier !== '+') {
        return {
          ok: false,
          error: `include:${wanted} has the qualifier "${qualifier}", so matching mail does not pass; remove the "${qualifier}"`,
        };
      }
      return { ok: true };
    }
    if (/^[+\-~?]?all$/i.test(term)) allSeen ??= term;
  }
  const redirect = terms.find((term) => /^redirect=/i.test(term));
  if (!allSeen && redirect && normalizeName(redirect.slice('redirect='.length)) === wanted) return { ok: true };
  return {
    ok: false,
    error: `it does not include ${wanted}; add include:${wanted} before the ${clip(allSeen ?? 'all', 10)} mechanism`,
  };
}
