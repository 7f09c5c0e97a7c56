/**
 * The message on the wire: MIME composed with nodemailer's MailComposer, then DKIM-signed with the
 * sending domain's key (src/delivery/dkim.ts). Every transport sends exactly these bytes.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { MailplaneContext } from '../context.js';
import type { RenderedMessage } from '../template/renderer.js';
import type { DomainRecord, Mailbox, MessageRecord, SendBatchRecord } from '../store/index.js';
import { unsubscribeUrl } from '../tracking/links.js';
import { dkimSign } from './dkim.js';
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

/**
 * Composes and signs one recipient's message. The envelope holds the recipient and its cc and
 * bcc copies (bcc only in the envelope), from the VERP address on the domain's return-path host.
 */
export async function composeMessage(ctx: MailplaneContext, input: ComposeInput): Promise<OutboundMessage> {
  const { batch, message, domain, rendered } = input;
  const content = batch.content;
  const unsubscribe = unsubscribeUrl(ctx, message.id);
  const composer = new MailComposer({
    from: address(content.from),
    to: [address(message.to)],
    ...(message.cc.length > 0 && { cc: message.cc.map(address) }),
    ...(content.replyTo && { replyTo: address(content.replyTo) }),
    subject: rendered.subject,
    ...(rendered.textBody !== undefined && { text: rendered.textBody }),
    ...(rendered.htmlBody !== undefined && { html: withPreheader(rendered.htmlBody, content.preText) }),
    ...(rendered.ampBody !== undefined && { amp: rendered.ampBody }),
    attachments: content.attachments.map((a) => ({ filename: a.filename, content: a.content, encoding: 'base64' })),
    // base64 rather than quoted-printable for the bodies: encoded natively, several times faster for
    // large HTML, and robust against long lines; receivers decode both.
    textEncoding: 'base64',
    messageId: messageIdHeader(message.id, domain.name),
    date: new Date(input.dateMs),
    headers: {
      ...content.headers,
      'List-Unsubscribe': `<${unsubscribe}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  });
  const unsigned = await composer.compile().build();
  const raw = await dkimSign(unsigned, {
    domainName: domain.name,
    selector: domain.dkimSelector,
    privateKey: input.dkimKey,
    headerFieldNames: DKIM_SIGNED_HEADERS,
  });
  return {
    id: message.id,
    envelope: {
      from: verpAddress(message.id, domain.returnPathHost),
      to: [message.to.email, ...message.cc.map((c) => c.email), ...message.bcc.map((c) => c.email)],
    },
    raw,
  };
}
