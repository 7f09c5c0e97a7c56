import { z } from 'zod';
import { codePointLabel, firstInvisibleCharacter } from './invisible.js';

/** Longest address accepted: RFC 5321's 256-octet path minus the angle brackets. */
export const MAX_EMAIL_LENGTH = 254;
/** Longest local part (RFC 5321 section 4.5.3.1.1). */
const MAX_LOCAL_LENGTH = 64;
/** Longest domain label (RFC 1035). */
const MAX_LABEL_LENGTH = 63;

/** Whitespace and control characters: a CR or LF in an address would let it inject SMTP commands. */
const FORBIDDEN = /[\s\u0000-\u001f\u007f-\u009f]/u;
/** Dot-atom text of RFC 5322 plus the non-ASCII characters RFC 6531 allows. */
const ATOM = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~\u0080-\u{10FFFF}]+$/u;
/** A hostname label: letters (any script), digits, inner hyphens. */
const LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}\p{M}-]*[\p{L}\p{N}\p{M}])?$/u;

const octets = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * Why `value` is not an address mailplane accepts, or `null` when it is one. Accepted: a dot-atom
 * local part (RFC 5322, UTF-8 allowed) `@` a hostname of at least two labels whose last label is
 * not numeric. Refused on purpose: quoted local parts and IP-literal domains, which no real
 * mailbox on the public internet needs and which complicate every later comparison; and invisible
 * or text-direction characters (src/model/invisible.ts), which disguise an address as another.
 */
export function emailAddressProblem(value: string): string | null {
  if (octets(value) > MAX_EMAIL_LENGTH) return `must be at most ${MAX_EMAIL_LENGTH} octets`;
  if (FORBIDDEN.test(value)) return 'must not contain spaces, line breaks or control characters';
  // Checked here, the one address rule every entry point uses (API, relay, suppressions): an
  // address with U+202E or a zero-width character reads as another address in every client.
  const invisible = firstInvisibleCharacter(value);
  if (invisible !== null)
    return `must not contain invisible or text-direction characters (found ${codePointLabel(invisible)})`;
  const at = value.lastIndexOf('@');
  if (at < 0) return 'must contain @';
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (local === '') return 'must have a local part before @';
  if (octets(local) > MAX_LOCAL_LENGTH) return `the part before @ must be at most ${MAX_LOCAL_LENGTH} octets`;
  if (!local.split('.').every((atom) => ATOM.test(atom))) return 'the part before @ is not a valid mailbox name';
  const labels = domain.split('.');
  if (labels.length < 2) return 'the domain must have at least two labels (example.com)';
  for (const label of labels) {
    if (label.length > MAX_LABEL_LENGTH || !LABEL.test(label)) return 'the domain is not a valid host name';
  }
  if (/^[0-9]+$/.test(labels.at(-1)!)) return 'the domain is not a valid host name';
  return null;
}

/** True when `value` is an address mailplane accepts; see {@link emailAddressProblem}. */
export const isEmailAddress = (value: string): boolean => emailAddressProblem(value) === null;

/**
 * zod schema of one email address. The address is kept as given (no trimming, no case change), so
 * what the caller sent is what they see back; a stray space or line break is an error, not fixed up.
 */
export const emailAddressSchema = z.string().superRefine((value, check) => {
  const problem = emailAddressProblem(value);
  if (problem !== null) check.addIssue({ code: 'custom', message: problem });
});
