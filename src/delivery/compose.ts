/**
 * The message on the wire: MIME composed with nodemailer's MailComposer, then DKIM-signed with the
 * sending domain's key (src/delivery/dkim.ts). Every transport sends exactly these bytes.
 */
import { createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { MailplaneContext } from '../context.js';
import type { RenderedMessage } from '../template/renderer.js';
import type { DomainRecord, Mailbox, MessageRecord, SendBatchRecord } from '../store/index.js';
import { unsubscribeUrl } from '../tracking/links.js';
import { hasSharedBody, type SharedBody, type SharedBodyCache } from './body-cache.js';
import { dkimBodyHash, dkimSign, dkimSignatureField } from './dkim.js';
import type { OutboundMessage } from './transport.js';

/**
 * Header fields the DKIM signature covers: nodemailer's default list (RFC 6376 5.4.1) plus the
 * RFC 8058 one-click header, which MUST be signed for receivers to honour it, and Feedback-ID.
 */
export const DKIM_SIGNED_HEADERS =
  'From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:' +
  'Content-ID:Content-Description:In-Reply-To:References:List-Id:List-Unsubscribe:List-Unsubscribe-Post:Feedback-ID';

/** The VERP envelope sender of a message: bounces to it name the message they are about. */
export function verpAddress(messageId: string, returnPathHost: string): string {
  return `b+${messageId}@${returnPathHost}`;
}

/** The message id in a VERP address made by {@link verpAddress}, or `null`. */
export function messageIdOfVerp(address: string): string | null {
  const match = /^b\+([0-9a-f-]{36})@/i.exec(address);
  return match ? match[1]!.toLowerCase() : null;
}

/** The `Message-ID` of a message: its id on the sending domain. */
export function messageIdHeader(messageId: string, domain: string): string {
  return `<${messageId}@${domain}>`;
}

/** Decrypted DKIM keys by domain (parsed once: decrypting and parsing per message costs CPU for nothing). */
export class DkimKeyCache {
  private readonly keys = new Map<string, KeyObject>();

  constructor(private readonly capacity = 1000) {}

  /** The private key of `domain`, decrypted with the instance secret. */
  get(ctx: MailplaneContext, domain: DomainRecord): KeyObject {
    const cacheKey = `${domain.id}:${domain.dkimSelector}:${domain.dkimPublicKey.slice(-16)}`;
    let key = this.keys.get(cacheKey);
    if (!key) {
      key = createPrivateKey(ctx.secrets.decrypt(domain.dkimPrivateKeySealed));
      if (this.keys.size >= this.capacity) this.keys.delete(this.keys.keys().next().value!);
      this.keys.set(cacheKey, key);
    }
    return key;
  }
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Puts the preview text first in the HTML body, hidden, where mail clients read it from. */
function withPreheader(html: string, preText: string | undefined): string {
  if (!preText) return html;
  const div = `<div style="display:none;max-height:0;overflow:hidden;mso-hide:all">${escapeHtml(preText)}</div>`;
  const body = /<body[^>]*>/i.exec(html);
  return body ? html.slice(0, body.index + body[0].length) + div + html.slice(body.index + body[0].length) : div + html;
}

const address = (m: Mailbox) => ({ name: m.name, address: m.email });

/** What {@link composeMessage} needs besides the message. */
export interface ComposeInput {
  batch: SendBatchRecord;
  message: MessageRecord;
  domain: DomainRecord;
  rendered: RenderedMessage;
  dkimKey: KeyObject;
  /** Date header, epoch milliseconds. */
  dateMs: number;
}

/** The bodies MailComposer gets: the real ones, or stand-ins when the body is shared. */
interface Bodies {
  html?: string;
  text?: string;
  amp?: string;
  attachments: { filename: string; content: string; encoding?: string }[];
}

const HEADER_END = Buffer.from('\r\n\r\n');

function realBodies(input: ComposeInput): Bodies {
  const { rendered, batch } = input;
  return {
    ...(rendered.textBody !== undefined && { text: rendered.textBody }),
    ...(rendered.htmlBody !== undefined && { html: withPreheader(rendered.htmlBody, batch.content.preText) }),
    ...(rendered.ampBody !== undefined && { amp: rendered.ampBody }),
    attachments: batch.content.attachments.map((a) => ({ filename: a.filename, content: a.content, encoding: 'base64' })),
  };
}

function composer(ctx: MailplaneContext, input: ComposeInput, bodies: Bodies, baseBoundary?: string): MailComposer {
  const { batch, message, domain, rendered } = input;
  const content = batch.content;
  return new MailComposer({
    from: address(content.from),
    to: [address(message.to)],
    ...(message.cc.length > 0 && { cc: message.cc.map(address) }),
    ...(content.replyTo && { replyTo: address(content.replyTo) }),
    subject: rendered.subject,
    ...(bodies.text !== undefined && { text: bodies.text }),
    ...(bodies.html !== undefined && { html: bodies.html }),
    ...(bodies.amp !== undefined && { amp: bodies.amp }),
    attachments: bodies.attachments,
    // base64 rather than quoted-printable for the bodies: encoded natively, several times faster for
    // large HTML, and robust against long lines; receivers decode both.
    textEncoding: 'base64',
    ...(baseBoundary !== undefined && { baseBoundary }),
    messageId: messageIdHeader(message.id, domain.name),
    date: new Date(input.dateMs),
    headers: {
      ...content.headers,
      'List-Unsubscribe': `<${unsubscribeUrl(ctx, message.id)}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  });
}

const signingKey = (input: ComposeInput) => ({
  domainName: input.domain.name,
  selector: input.domain.dkimSelector,
  privateKey: input.dkimKey,
  headerFieldNames: DKIM_SIGNED_HEADERS,
});

function outbound(input: ComposeInput, raw: Buffer): OutboundMessage {
  const { message, domain } = input;
  return {
    id: message.id,
    envelope: {
      from: verpAddress(message.id, domain.returnPathHost),
      to: [message.to.email, ...message.cc.map((c) => c.email), ...message.bcc.map((c) => c.email)],
    },
    raw,
  };
}

// nodemailer picks a text part's transfer encoding from its content (7bit when plain with short
// lines, else base64): a stand-in of the same class gives the same top-level headers.
const NOT_PLAIN = /[\x00-\x08\x0b\x0c\x0e-\x1f\u0080-\uFFFF]/;
function standIn(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (NOT_PLAIN.test(text)) return '\u00e9';
  return text.length > 128 * 1024 || /^.{77,}/m.test(text) ? 'x'.repeat(77) : 'x';
}

/** Stand-ins for the bodies of a shared-body batch, kept with the body so they are derived once. */
const standIns = new WeakMap<SharedBody, Bodies>();

/**
 * Composes the first message of a shared-body batch in full and keeps its body, after checking
 * that the stand-in composition gives exactly the same top-level header block; if it does not,
 * the batch is composed per message (`null`).
 */
async function composeSharedBody(ctx: MailplaneContext, input: ComposeInput): Promise<SharedBody | null> {
  const bodies = realBodies(input);
  const baseBoundary = randomBytes(8).toString('hex');
  const full = await composer(ctx, input, bodies, baseBoundary).compile().build();
  const split = full.indexOf(HEADER_END);
  const stand: Bodies = {
    ...(bodies.text !== undefined && { text: standIn(bodies.text) }),
    ...(bodies.html !== undefined && { html: standIn(bodies.html) }),
    ...(bodies.amp !== undefined && { amp: standIn(bodies.amp) }),
    attachments: bodies.attachments.map((a) => ({ filename: a.filename, content: 'x' })),
  };
  const headers = Buffer.from(composer(ctx, input, stand, baseBoundary).compile().buildHeaders());
  if (split === -1 || !headers.equals(full.subarray(0, split))) {
    ctx.logger.warn('delivery: a shared body did not recompose identically; composing per message', { batchId: input.batch.id });
    return null;
  }
  const body = Buffer.from(full.subarray(split + HEADER_END.length));
  const shared: SharedBody = { baseBoundary, body, bodyHash: dkimBodyHash(body) };
  standIns.set(shared, stand);
  return shared;
}

/**
 * Composes and signs one recipient's message. The envelope holds the recipient and its cc and
 * bcc copies (bcc only in the envelope), from the VERP address on the domain's return-path host.
 * With `bodies`, a batch whose bodies do not vary per recipient ({@link hasSharedBody}) has its
 * MIME body composed and hashed once; each message builds and signs only its header block.
 */
export async function composeMessage(ctx: MailplaneContext, input: ComposeInput, bodies?: SharedBodyCache): Promise<OutboundMessage> {
  if (bodies && hasSharedBody(input.batch)) {
    const shared = await bodies.get(input.batch.id, () => composeSharedBody(ctx, input));
    const stand = shared && standIns.get(shared);
    if (shared && stand) {
      const headers = Buffer.from(composer(ctx, input, stand, shared.baseBoundary).compile().buildHeaders());
      const field = await dkimSignatureField(headers.toString('latin1'), shared.bodyHash, signingKey(input));
      return outbound(input, Buffer.concat([Buffer.from(field, 'latin1'), headers, HEADER_END, shared.body]));
    }
  }
  const unsigned = await composer(ctx, input, realBodies(input)).compile().build();
  return outbound(input, await dkimSign(unsigned, signingKey(input)));
}
