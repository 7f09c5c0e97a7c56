import { z } from 'zod';

/** The longest webhook URL accepted, before and after normalisation (the common browser/CDN limit). */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** The outcome of {@link parseWebhookUrl}. */
export type WebhookUrlResult = { ok: true; url: string } | { ok: false; message: string };

// Control characters and whitespace anywhere: the WHATWG parser would silently strip CR, LF and tab
// (and trim the ends), so a URL with them would be stored as something other than what was given,
// and a raw CR/LF has no business near an HTTP request line.
const UNSAFE_CHARACTERS = /[\u0000-\u0020\u007f-\u009f\u2028\u2029]/;

/**
 * Validates and normalises a webhook endpoint. Accepted: an absolute `http:` or `https:` URL with a
 * host, without credentials (`user:pass@`, which would end up in logs and in the stored record),
 * without a fragment (never sent to a server, so it can only be a mistake), free of whitespace and
 * control characters, at most {@link MAX_WEBHOOK_URL_LENGTH} characters. The answer is the WHATWG
 * serialisation: scheme and host lower-cased, IDN hosts in punycode, default port dropped, `/` as the
 * empty path, numeric IPv4 forms (`0x7f.1`) written as dotted quads; that is what gets called.
 *
 * Private and loopback targets are accepted here; `checkWebhookTarget` decides at delivery time.
 */
export function parseWebhookUrl(raw: string): WebhookUrlResult {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    return { ok: false, message: `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` };
  }
  if (UNSAFE_CHARACTERS.test(raw)) return { ok: false, message: 'must not contain whitespace or control characters' };
  if (raw.includes('#')) return { ok: false, message: 'must not contain a fragment (#)' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: 'must be an absolute http or https URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, message: 'must use the http or https scheme' };
  }
  if (url.hostname === '') return { ok: false, message: 'must name a host' };
  if (url.username !== '' || url.password !== '' || /^https?:\/\/[^/?]*@/i.test(raw)) {
    return { ok: false, message: 'must not contain credentials (user:password@)' };
  }
  const normalised = url.href;
  if (normalised.length > MAX_WEBHOOK_URL_LENGTH) {
    return { ok: false, message: `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters once normalised` };
  }
  return { ok: true, url: normalised };
}

/** zod schema of a webhook URL in a request body: validated by {@link parseWebhookUrl}, normalised. */
export const webhookUrlSchema = z.string().transform((raw, ctx) => {
  const result = parseWebhookUrl(raw);
  if (result.ok) return result.url;
  ctx.addIssue({ code: 'custom', message: result.message });
  return z.NEVER;
});
