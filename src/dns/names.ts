import { domainToASCII } from 'node:url';

/** The longest presentation-form name DNS can carry (RFC 1035 §2.3.4, without the trailing dot). */
export const MAX_NAME_LENGTH = 253;

/**
 * Lower-cases a DNS name, drops one trailing dot and converts an internationalised name to its
 * ASCII (punycode) form, so names typed by customers, names from answers and configured hosts
 * compare equal when DNS would treat them as equal.
 */
export function normalizeName(name: string): string {
  const trimmed = name.trim().replace(/\.$/, '');
  // domainToASCII returns '' for what it cannot convert; keep the lower-cased input then, so
  // isValidName can reject it with the original text in the failure reason.
  const ascii = /^[\x00-\x7f]*$/.test(trimmed) ? trimmed : domainToASCII(trimmed) || trimmed;
  return ascii.toLowerCase();
}

/**
 * True when a (normalised) name can be sent in a DNS query: 1-253 octets, labels of 1-63 octets
 * made of letters, digits, hyphen and underscore (underscore appears in `_dmarc` and
 * `_domainkey` labels). Anything else is refused before it reaches the network.
 */
export function isValidName(name: string): boolean {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) return false;
  return name.split('.').every((label) => /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/.test(label));
}

/** True when two names denote the same DNS node, whatever their case and trailing dot. */
export function sameName(a: string, b: string): boolean {
  return normalizeName(a) === normalizeName(b);
}
