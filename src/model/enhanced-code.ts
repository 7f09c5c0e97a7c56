/** RFC 3463 enhanced status codes as SMTP replies carry them; pure, shared by the bounce classifier and traffic shaping. */
const ENHANCED = /^([245])\.(\d{1,3})\.(\d{1,3})\b/;

/**
 * The enhanced status code at the start of `text` (after the basic code, if present), or
 * undefined. RFC 3463 says its class must match the basic code's first digit; one that does not is ignored.
 */
export function parseEnhancedCode(text: string, code: number | null): string | undefined {
  const body = text.replace(/^\d{3}[ -]/, '').trimStart();
  const match = ENHANCED.exec(body);
  if (!match) return undefined;
  if (code !== null && String(code)[0] !== match[1]) return undefined;
  return `${match[1]}.${Number(match[2])}.${Number(match[3])}`;
}
