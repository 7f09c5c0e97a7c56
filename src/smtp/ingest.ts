/**
 * A message submitted over SMTP, turned into the send request the HTTP API takes, so that both
 * feed the same pipeline (checks, suppressions, storage, delivery). mailparser reads the MIME.
 *
 * - Recipients are the envelope's (`RCPT TO`), each a message of its own as a `to` of the API;
 *   display names are taken from the `To` and `Cc` headers where an address matches. Bcc
 *   recipients are simply envelope recipients not named in the headers.
 * - `From`, `Reply-To`, `Subject`, the HTML and text bodies and the attachments are kept; the
 *   message is composed and DKIM-signed again at delivery, like an API send.
 * - `X-*` headers become the send's custom `headers` (echoed in webhook events), except the
 *   `X-Mailplane-*` controls: `X-Mailplane-Groups` (comma-separated), `X-Mailplane-IpPool`,
 *   `X-Mailplane-Track` (`opens`, `clicks` or both, comma-separated),
 *   `X-Mailplane-Idempotency-Key` (as the API's `Idempotency-Key`, src/idempotency/keys.ts), and
 *   `X-Mailplane-Stream` (`transactional` or `bulk`, as the API's `stream`; src/sending/stream.ts).
 *   Controls are never delivered.
 */
import type { AddressObject, ParsedMail } from 'mailparser';
import { MAX_HEADERS, sendRequestSchema, type SendRequest } from '../sending/request.js';
import { plainIssueMessage } from '../model/issues.js';
import { SEND_STREAMS } from '../sending/stream.js';

/** The request, or why the message cannot be one (an SMTP reply text, without the code). */
export type IngestResult = { ok: true; request: SendRequest; idempotencyKey?: string } | { ok: false; reply: string };

const CONTROL_PREFIX = 'x-mailplane-';

const addresses = (field: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((f) => f.value);

/**
 * A display name as the API takes it: one line of at most 200 characters. Header names are the
 * client's free text; a stray control character should not refuse the whole message.
 */
const displayName = (name: string | undefined) =>
  (name ?? '')
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .trim()
    .slice(0, 200);

/** The header's value as written, unfolded. */
function headerValue(line: string): string {
  return line
    .slice(line.indexOf(':') + 1)
    .replace(/\r?\n[ \t]+/g, ' ')
    .trim();
}

/** The send request for `mail`, delivered to `recipients` (the envelope's). */
export function sendRequestOf(mail: ParsedMail, recipients: readonly string[]): IngestResult {
  const from = addresses(mail.from)[0];
  if (!from?.address) return { ok: false, reply: '5.6.0 the message has no From address' };
  const named = new Map([...addresses(mail.to), ...addresses(mail.cc)].map((a) => [a.address?.toLowerCase(), a.name]));
  const replyTo = addresses(mail.replyTo)[0];
  const headers: Record<string, string> = {};
  const controls = new Map<string, string>();
  for (const { key, line } of mail.headerLines) {
    if (key.startsWith(CONTROL_PREFIX)) controls.set(key, headerValue(line));
    else if (key.startsWith('x-') && Object.keys(headers).length < MAX_HEADERS)
      headers[line.slice(0, line.indexOf(':')).trim()] = headerValue(line);
  }
  const list = (name: string) =>
    (controls.get(name) ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
  const track = list(`${CONTROL_PREFIX}track`).map((v) => v.toLowerCase());
  const stream = controls.get(`${CONTROL_PREFIX}stream`)?.trim().toLowerCase();
  if (stream !== undefined && !(SEND_STREAMS as readonly string[]).includes(stream)) {
    return { ok: false, reply: '5.6.0 X-Mailplane-Stream: must be "transactional" or "bulk"' };
  }
  const candidate = {
    from: { email: from.address, name: displayName(from.name) },
    ...(replyTo?.address && { replyTo: { email: replyTo.address, name: displayName(replyTo.name) } }),
    to: recipients.map((email) => ({ email, name: displayName(named.get(email.toLowerCase())) })),
    subject: mail.subject ?? '',
    ...(typeof mail.html === 'string' && { htmlBody: mail.html }),
    // A message with no text part at all still has a (blank) body.
    ...(mail.text !== undefined || typeof mail.html !== 'string' ? { textBody: mail.text ?? '' } : {}),
    ...(Object.keys(headers).length > 0 && { headers }),
    ...(list(`${CONTROL_PREFIX}groups`).length > 0 && { groups: list(`${CONTROL_PREFIX}groups`) }),
    ...(controls.has(`${CONTROL_PREFIX}ippool`) && { ippool: controls.get(`${CONTROL_PREFIX}ippool`) }),
    ...(stream !== undefined && { stream }),
    ...(track.includes('opens') && { trackOpens: true }),
    ...(track.includes('clicks') && { trackClicks: true }),
    ...(mail.attachments.length > 0 && {
      attachments: mail.attachments.map((a, i) => ({
        filename: a.filename ?? `attachment-${i + 1}`,
        content: a.content.toString('base64'),
      })),
    }),
  };
  const parsed = sendRequestSchema.safeParse(candidate, { error: plainIssueMessage });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, reply: `5.6.0 ${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}` };
  }
  const idempotencyKey = controls.get(`${CONTROL_PREFIX}idempotency-key`);
  return { ok: true, request: parsed.data, ...(idempotencyKey !== undefined && { idempotencyKey }) };
}
