/**
 * Signed links to the attachments of received messages that are too large to be inline in the
 * webhook payload: `<trackingBaseUrl>/inbound/attachment/<message id>/<index>?sa=<sub-account>&exp=<ms>&sig=<hmac>`,
 * served with mailplane's other public links (src/http/tracking-handler.ts) without an API key: the
 * signature, made with the instance secret (`SecretBox.sign`, as tracking links are) under a label of
 * its own, covers the sub-account, the message, the index and the expiry, so a link names one
 * attachment until it expires and cannot be turned into another.
 */
import { parseReceivedMime } from '../smtp/server.js';
import type { SecretBox } from '../crypto/secrets.js';
import type { MailplaneConfig } from '../mailplane-config.js';
import type { Clock } from '../model/time.js';
import type { MailplaneStore } from '../store/index.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface AttachmentLinksDeps {
  readonly config: MailplaneConfig;
  readonly store: MailplaneStore;
  readonly secrets: SecretBox;
  readonly clock: Clock;
}

/** How long a link is valid: 7 days. */
export const ATTACHMENT_LINK_TTL_MS = 7 * 24 * 3_600_000;

/** The path of an attachment link under the links' base path. */
export const ATTACHMENT_LINK_PATH = /^\/inbound\/attachment\/([0-9a-f-]{36})\/(\d{1,4})$/;

const signedData = (subAccountId: number, messageId: string, index: number, expiresMs: number) =>
  `inbound-attachment.${subAccountId}.${messageId}.${index}.${expiresMs}`;

/** The link to attachment `index` of message `messageId`, valid {@link ATTACHMENT_LINK_TTL_MS} from `nowMs`. */
export function attachmentUrl(
  ctx: Pick<AttachmentLinksDeps, 'secrets' | 'config'>,
  subAccountId: number,
  messageId: string,
  index: number,
  nowMs: number,
): string {
  const expiresMs = nowMs + ATTACHMENT_LINK_TTL_MS;
  const sig = ctx.secrets.sign(signedData(subAccountId, messageId, index, expiresMs));
  return `${ctx.config.trackingBaseUrl}/inbound/attachment/${messageId}/${index}?sa=${subAccountId}&exp=${expiresMs}&sig=${sig}`;
}

/** What an attachment link leads to: the attachment, or why not (404: not valid or expired; 410: no longer kept). */
export type AttachmentLinkResult =
  { ok: true; filename: string; content: Buffer } | { ok: false; status: 404 | 410; message: string };

const gone: AttachmentLinkResult = { ok: false, status: 410, message: 'This attachment is no longer kept.' };

/**
 * What the link `GET /inbound/attachment/<messageId>/<index>?<query>` leads to: the attachment,
 * re-read from the stored raw message; a link that is not valid or has expired is 404, a message
 * or raw copy that is gone (retention, or larger than what was kept) 410.
 */
export async function readAttachmentLink(
  ctx: Pick<AttachmentLinksDeps, 'secrets' | 'clock' | 'store'>,
  messageId: string,
  index: number,
  query: URLSearchParams,
): Promise<AttachmentLinkResult> {
  const subAccountId = Number(query.get('sa') ?? '');
  const expiresMs = Number(query.get('exp') ?? '');
  const valid =
    Number.isSafeInteger(subAccountId) &&
    Number.isSafeInteger(expiresMs) &&
    expiresMs >= ctx.clock.now() &&
    ctx.secrets.verify(signedData(subAccountId, messageId, index, expiresMs), query.get('sig') ?? '');
  if (!valid) return { ok: false, status: 404, message: 'This link is not valid or has expired.' };
  const message = await ctx.store.inbound.getMessage(subAccountId, messageId);
  if (!message?.raw) return gone;
  const attachment = await parseReceivedMime(message.raw).then(
    (parsed) => parsed.attachments[index],
    () => undefined,
  );
  if (!attachment) return gone;
  return { ok: true, filename: attachment.filename ?? `attachment-${index}`, content: attachment.content };
}
