import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures. Every delivery carries the Standard Webhooks headers (standardwebhooks.com,
 * {@link standardWebhookHeaders}), verifiable with the scheme's published libraries, and, for
 * receivers written before them, the legacy header below, deprecated from mailplane 0.2.0 and sent
 * until at least 2027-06-30 (docs/webhooks.md, "Deprecation"), in the style of Stripe and Svix:
 *
 *     X-Mailplane-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">
 *
 * keyed with the webhook's secret (the whole `whsec_…` string, as UTF-8). Binding the timestamp
 * into the MAC lets a receiver refuse replays older than a tolerance; the `v1` label leaves room for
 * another scheme, and a header may carry several `v1` values (e.g. old and new secret while a
 * rotation settles); one matching value is enough.
 */

/** The HTTP header that carries the signature (lower-cased by Node's HTTP parser: `x-mailplane-signature`). */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Mailplane-Signature';

/** Default replay window of {@link verifyWebhookSignature}: five minutes either way. */
export const DEFAULT_SIGNATURE_TOLERANCE_SECONDS = 300;

/** The raw body as sent: the exact bytes, not a re-serialised object. */
export type SignedBody = string | Uint8Array;

function mac(secret: string, timestamp: number, body: SignedBody): Buffer {
  return createHmac('sha256', secret)
    .update(`${timestamp}.`)
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest();
}

/** The Standard Webhooks headers (lower-case, as they reach a receiver). */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/**
 * The HMAC key of a `whsec_` secret under the Standard Webhooks scheme: the base64 decoding of the
 * part after the prefix (mailplane's secrets are 32 base62 characters, valid base64: 24 bytes).
 */
export function standardWebhookKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/**
 * The three Standard Webhooks headers of one attempt: `webhook-signature` holds one
 * `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` per secret, space-separated (during a
 * rotation both the new and the previous secret sign; a receiver accepts a match with either).
 *
 * @param secrets the signing secrets (`whsec_…`), the current one first
 * @param id the message id: the same on every retry and replay of one event
 * @param timestamp UNIX time of the attempt, in whole seconds
 * @param body the exact request body
 * @example
 * const headers = standardWebhookHeaders([secret], event.id, Math.floor(Date.now() / 1000), body);
 * // { 'webhook-id': '…', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,K5oZ…=' }
 */
export function standardWebhookHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: SignedBody,
): Record<string, string> {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new RangeError('timestamp must be whole UNIX seconds');
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const signatures = secrets.map(
    (secret) =>
      `v1,${createHmac('sha256', standardWebhookKey(secret)).update(`${id}.${timestamp}.`).update(bytes).digest('base64')}`,
  );
  return {
    [STANDARD_WEBHOOK_HEADERS.id]: id,
    [STANDARD_WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [STANDARD_WEBHOOK_HEADERS.signature]: signatures.join(' '),
  };
}

/**
 * The legacy signature header value of one delivery (deprecated: see the module comment).
 *
 * @param secret the webhook's signing secret, or its secrets during a rotation (one `v1` each)
 * @param timestamp UNIX time of the attempt, in whole seconds
 * @param body the exact request body
 * @example
 * const header = signWebhookPayload(secret, Math.floor(Date.now() / 1000), body);
 * // 't=1700000000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd'
 */
export function signWebhookPayload(secret: string | readonly string[], timestamp: number, body: SignedBody): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new RangeError('timestamp must be whole UNIX seconds');
  const secrets = typeof secret === 'string' ? [secret] : secret;
  return [`t=${timestamp}`, ...secrets.map((one) => `v1=${mac(one, timestamp, body).toString('hex')}`)].join(',');
}

/** Why {@link verifyWebhookSignature} refused a delivery. */
export type SignatureFailure = 'malformed-header' | 'timestamp-out-of-tolerance' | 'signature-mismatch';

/** The verdict of {@link verifyWebhookSignature}. */
export type SignatureVerification = { ok: true; timestamp: number } | { ok: false; reason: SignatureFailure };

/** Parses `t=…,v1=…[,v1=…]`; unknown schemes are skipped so a future `v2` does not break receivers. */
function parseHeader(header: string): { timestamp: number; signatures: Buffer[] } | null {
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !/^[0-9]{1,15}$/.test(value)) return null;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/i.test(value)) return null;
      signatures.push(Buffer.from(value, 'hex'));
    }
  }
  return timestamp === undefined || signatures.length === 0 ? null : { timestamp, signatures };
}

/**
 * Checks a delivery's signature header against its raw body: the header must be well formed, its
 * timestamp within `toleranceSeconds` of `nowSeconds` (either way: a replay of an old delivery and a
 * forged future timestamp both fail), and one `v1` value must equal the HMAC, compared in constant time.
 *
 * @param secret the webhook's signing secret
 * @param header the value of the {@link WEBHOOK_SIGNATURE_HEADER} header
 * @param body the exact bytes received, before any JSON parsing
 * @param toleranceSeconds the replay window (default {@link DEFAULT_SIGNATURE_TOLERANCE_SECONDS})
 * @param nowSeconds the receiver's current UNIX time in seconds (default: the system clock)
 * @example
 * const verdict = verifyWebhookSignature(secret, req.headers['x-mailplane-signature'], rawBody);
 * if (!verdict.ok) return res.status(400).end();
 */
export function verifyWebhookSignature(
  secret: string,
  header: string | undefined,
  body: SignedBody,
  toleranceSeconds: number = DEFAULT_SIGNATURE_TOLERANCE_SECONDS,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): SignatureVerification {
  const parsed = header === undefined ? null : parseHeader(header);
  if (!parsed) return { ok: false, reason: 'malformed-header' };
  if (Math.abs(nowSeconds - parsed.timestamp) > toleranceSeconds) {
    return { ok: false, reason: 'timestamp-out-of-tolerance' };
  }
  const expected = mac(secret, parsed.timestamp, body);
  // Every candidate is compared (no early exit) so timing does not tell which one matched.
  let matched = false;
  for (const candidate of parsed.signatures) {
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  return matched ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: 'signature-mismatch' };
}
