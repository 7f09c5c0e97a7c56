import { domainToASCII, domainToUnicode } from 'node:url';
import { z } from 'zod';

/** Longest domain name DNS can carry (RFC 1035), measured on the stored ASCII form. */
export const MAX_DOMAIN_NAME_LENGTH = 253;

/*
 * The spec's pattern is `^[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9](?:\.[a-zA-Z]{2,})+$`. It is
 * applied to the stored (lower-case, punycode) form with two widenings, both needed for names the
 * spec means to allow:
 *  - labels after the first follow the first label's rule (2-63 letters, digits, hyphens, not
 *    starting or ending with a hyphen) instead of letters only, so `mail.my-shop.com` and the
 *    punycode of an IDN label (`mail.xn--e1afmkfd.com`) pass;
 *  - the last label may also be a punycode TLD (`xn--p1ai`, the A-label of `рф`).
 * Every name the spec's pattern accepts (and DNS can carry) is accepted.
 */
const LABEL = '[a-z0-9][a-z0-9-]{0,61}[a-z0-9]';
const TLD = '(?:[a-z]{2,63}|xn--[a-z0-9-]{0,58}[a-z0-9])';
/** The stored-form pattern: two or more labels, the last a TLD. */
export const DOMAIN_NAME_PATTERN = new RegExp(`^${LABEL}(?:\\.${LABEL})*\\.${TLD}$`);

/*
 * ASCII characters other than letters, digits, hyphen and dot are refused before IDN conversion:
 * domainToASCII parses a URL host, so it would silently cut `example.com/x`, `example.com?x` or
 * `example.com:25` down to `example.com` and decode `ex%61mple.com`.
 */
const FORBIDDEN_ASCII = /[\u0000-\u002c\u002f\u003a-\u0040\u005b-\u0060\u007b-\u007f]/;

/**
 * True when every `xn--` label is punycode that decodes and encodes back to itself. Node 20's
 * domainToASCII refuses bad punycode (`xn--zz`) by answering '', but Node 22+ (ada 3) passes
 * it through unchanged, so the round trip is checked here on every version.
 */
function punycodeLabelsDecode(ascii: string): boolean {
  return ascii.split('.').every((label) => {
    if (!label.startsWith('xn--')) return true;
    const unicode = domainToUnicode(label);
    return unicode !== '' && !unicode.startsWith('xn--') && domainToASCII(unicode) === label;
  });
}

/** Why a name was refused, or the normalised name. */
export type DomainNameResult = { ok: true; name: string } | { ok: false; problem: string };

/**
 * Normalises a sending-domain name to the form mailplane stores and compares: trimmed, lower-case,
 * Unicode (IDN) labels converted to punycode, one trailing dot removed; then checks it against
 * `DOMAIN_NAME_PATTERN` and the 253-character limit.
 *
 * @example
 * normaliseDomainName(' Mail.Example.COM. ') // { ok: true, name: 'mail.example.com' }
 * normaliseDomainName('пример.рф')           // { ok: true, name: 'xn--e1afmkfd.xn--p1ai' }
 */
export function normaliseDomainName(raw: string): DomainNameResult {
  const trimmed = raw.trim().toLowerCase();
  if (trimmed === '') return { ok: false, problem: 'must not be empty' };
  if (FORBIDDEN_ASCII.test(trimmed)) {
    return { ok: false, problem: 'may contain only letters, digits, hyphens and dots' };
  }
  // domainToASCII applies UTS #46 (maps case, full-width forms and ideographic full stops) and
  // answers '' for a name it cannot convert (bad punycode such as `xn--zz`, forbidden code points).
  // ASCII input must come back unchanged: the WHATWG host parser would turn `0x7f.1` into an IPv4.
  let ascii = domainToASCII(trimmed);
  if (ascii === '' || (/^[\x00-\x7f]*$/.test(trimmed) && ascii !== trimmed) || !punycodeLabelsDecode(ascii)) {
    return { ok: false, problem: 'is not a valid internationalised domain name' };
  }
  // One trailing dot is the fully-qualified spelling of the same name; it is stripped after the
  // conversion so an ideographic full stop at the end counts as well.
  if (ascii.endsWith('.')) ascii = ascii.slice(0, -1);
  if (ascii.length > MAX_DOMAIN_NAME_LENGTH) {
    return { ok: false, problem: `must be at most ${MAX_DOMAIN_NAME_LENGTH} characters (in its punycode form)` };
  }
  if (!DOMAIN_NAME_PATTERN.test(ascii)) {
    return {
      ok: false,
      problem:
        'must be a domain name such as example.com or mail.example.com (labels of 2 to 63 letters, digits or hyphens)',
    };
  }
  return { ok: true, name: ascii };
}

/**
 * Best-effort conversion of a list `search` text to the stored form, so a Unicode label finds its
 * punycode. Text that is not a convertible name is searched as given (lower-cased by the store).
 */
export function searchTextForDomains(search: string): string {
  if (/^[\x00-\x7f]*$/.test(search) || FORBIDDEN_ASCII.test(search)) return search;
  const ascii = domainToASCII(search.trim().toLowerCase());
  return ascii === '' ? search : ascii;
}

/** zod schema of a domain name in a request body; its output is the normalised name. */
export const domainNameSchema = z
  .string()
  // Raw input may be Unicode and padded, so the limit here only stops absurd sizes early; the
  // 253-character limit applies to the normalised form.
  .max(1000, `must be at most ${MAX_DOMAIN_NAME_LENGTH} characters`)
  .transform((value, ctx) => {
    const result = normaliseDomainName(value);
    if (result.ok) return result.name;
    ctx.addIssue({ code: 'custom', message: result.problem });
    return z.NEVER;
  });
