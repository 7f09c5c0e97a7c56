/**
 * Rules for the custom headers of a send request. A header is refused, never silently dropped or
 * rewritten, when it could inject lines or take over a header mailplane owns.
 */

/** Headers mailplane writes itself; a request may not set or override them (compared case-insensitively). */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'from',
  'sender',
  'to',
  'cc',
  'bcc',
  'reply-to',
  'subject',
  'date',
  'message-id',
  'return-path',
  'received',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'content-disposition',
  'dkim-signature',
  'arc-seal',
  'arc-message-signature',
  'arc-authentication-results',
  'authentication-results',
  'list-unsubscribe',
  'list-unsubscribe-post',
  'feedback-id',
]);

/** Prefix of headers mailplane uses internally. */
const INTERNAL_PREFIX = 'x-mailplane-';

/** Longest header line RFC 5322 allows, without CRLF. */
export const MAX_HEADER_LINE = 998;

/** A field name is printable US-ASCII except colon (RFC 5322 section 3.6.8). */
const FIELD_NAME = /^[!-9;-~]{1,76}$/;

/** Why a custom header may not be used, or `null` when it may. */
export function customHeaderProblem(name: string, value: string): string | null {
  if (!FIELD_NAME.test(name)) return 'the header name must be 1-76 printable ASCII characters without a colon or space';
  const lower = name.toLowerCase();
  if (RESERVED_HEADERS.has(lower) || lower.startsWith(INTERNAL_PREFIX)) {
    return `${name} is set by mailplane and cannot be given as a custom header`;
  }
  if (/[\r\n\u0000]/.test(value)) return 'the header value must not contain line breaks or NUL';
  if (name.length + 2 + Buffer.byteLength(value) > MAX_HEADER_LINE)
    return `the header line must be at most ${MAX_HEADER_LINE} octets`;
  return null;
}
