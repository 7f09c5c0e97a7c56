/**
 * The message on the wire: MIME composed with nodemailer's MailComposer (it builds the MIME tree
 * and decides every header, boundary and transfer encoding; src/delivery/mime-wire.ts writes the
 * tree out synchronously, the same bytes as nodemailer's streaming build), then DKIM-signed with
 * the sending domain's key (src/delivery/dkim.ts). Every transport sends exactly these bytes:
 * parts sent as is get CRLF line breaks before composing, so that the SMTP layer has none to
 * rewrite after signing.
 */
import { createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { detectMimeType, hasLongerLines, isPlainText } from 'nodemailer/lib/mime-funcs';
import { htmlLandmarks, spliceHtml } from '../model/html.js';
import type { RenderedMessage } from '../template/renderer.js';
import type { AttachmentContent, DomainRecord, Mailbox, MessageRecord, SendBatchRecord } from '../store/index.js';
import { unsubscribeUrl, type LinksDeps } from '../tracking/links.js';
import {
  hasSharedBody,
  type ComposerBodies,
  type ComposerBody,
  type SharedBody,
  type SharedBodyCache,
} from './body-cache.js';
import { dkimBodyHash, dkimSign, dkimSignatureField } from './dkim.js';
import type { SignFunction } from './dkim-signer.js';
import { serializeMimeParts } from './mime-wire.js';
import { outboundMessage, type OutboundMessage } from './transport.js';
import { verpAddress } from './verp.js';
import type { Logger } from '../logging/logger.js';

/** What this module uses of the instance: what it calls uses ({@link LinksDeps}), and the fields below. */
export interface ComposeDeps extends LinksDeps {
  readonly logger: Logger;
}

/**
 * Header fields the DKIM signature covers: nodemailer's default list (RFC 6376 5.4.1) plus the
 * RFC 8058 one-click header, which MUST be signed for receivers to honour it, and Feedback-ID.
 */
export const DKIM_SIGNED_HEADERS =
  'From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:' +
  'Content-ID:Content-Description:In-Reply-To:References:List-Id:List-Unsubscribe:List-Unsubscribe-Post:Feedback-ID';

/** The `Message-ID` of a message: its id on the sending domain. */
export function messageIdHeader(messageId: string, domain: string): string {
  return `<${messageId}@${domain}>`;
}

/** Decrypted DKIM keys by domain (parsed once: decrypting and parsing per message costs CPU for nothing). */
export class DkimKeyCache {
  private readonly keys = new Map<string, KeyObject>();

  constructor(private readonly capacity = 1000) {}

  /** The private key of `domain`, decrypted with the instance secret. */
  get(ctx: ComposeDeps, domain: DomainRecord): KeyObject {
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
  // After the <body> start tag, found by an HTML tokenizer in one linear pass (src/model/html.ts).
  const at = Math.max(htmlLandmarks(html).bodyStart, 0);
  return spliceHtml(html, [{ start: at, end: at, text: div }]);
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
  /** Where the DKIM signature is made (delivery's signing threads); default libuv's pool. */
  sign?: SignFunction;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * Whether nodemailer sends a text body as is (7bit) rather than base64 (with `textEncoding:
 * 'base64'`): when it is plain (`isPlainText`) without lines over 76 characters
 * (`hasLongerLines`). nodemailer's own two checks, in the cheaper order: an HTML body usually has
 * a long line near its start, while the plain-text scan reads all of an ASCII body.
 */
function sentAsIs(text: string): boolean {
  return !hasLongerLines(text, 76) && isPlainText(text);
}

/**
 * What to give MailComposer for the body `text` so that it composes the same message with less
 * work: a body it would base64 goes in as its UTF-8 bytes (nodemailer then skips scanning it and
 * picks base64 from `textEncoding`, and the serializer encodes the bytes without converting the
 * string again); a 7bit body, and an empty one (no part at all), stay strings.
 */
export function bodyContent(text: string): ComposerBody {
  return text.length > 0 && !sentAsIs(text) ? Buffer.from(text) : text;
}

const BARE_BREAK = /\r(?!\n)|(?<!\r)\n/;

/**
 * `text` with every line break CRLF. A part nodemailer sends as is (7bit, or a message/* part)
 * keeps the line breaks it was given, and the SMTP layer turns bare LF and CR into CRLF after the
 * DKIM signature was computed over them: the receiver's body hash would not match.
 */
export function withCrlf(text: string): string {
  return BARE_BREAK.test(text) ? text.replace(/\r\n|\r|\n/g, '\r\n') : text;
}

/** A body for MailComposer ({@link bodyContent}), with CRLF line breaks when it is sent as is. */
function wireBody(text: string): ComposerBody {
  const content = bodyContent(text);
  // Turning LF or CR into CRLF keeps the 7bit choice: both are line ends to nodemailer's checks.
  return typeof content === 'string' ? withCrlf(content) : content;
}

/**
 * An attachment for MailComposer: base64 as accepted, which nodemailer decodes and base64-encodes
 * again, except a message/* one, which it sends as is (RFC 2046 5.2.1 allows no encoding), so its
 * line breaks are made CRLF.
 */
function wireAttachment(a: AttachmentContent): ComposerBodies['attachments'][number] {
  if (!/^message\//i.test(detectMimeType(a.filename)))
    return { filename: a.filename, content: a.content, encoding: 'base64' };
  return {
    filename: a.filename,
    content: Buffer.from(withCrlf(Buffer.from(a.content, 'base64').toString('latin1')), 'latin1'),
  };
}

function realBodies(input: ComposeInput): ComposerBodies {
  const { rendered, batch } = input;
  return {
    ...(rendered.textBody !== undefined && { text: wireBody(rendered.textBody) }),
    ...(rendered.htmlBody !== undefined && { html: wireBody(withPreheader(rendered.htmlBody, batch.content.preText)) }),
    ...(rendered.ampBody !== undefined && { amp: wireBody(rendered.ampBody) }),
    attachments: batch.content.attachments.map(wireAttachment),
  };
}

function composer(ctx: ComposeDeps, input: ComposeInput, bodies: ComposerBodies, baseBoundary?: string): MailComposer {
  const { batch, message, domain, rendered } = input;
  const content = batch.content;
  return new MailComposer({
    from: address(content.from),
    // A copy shows what every copy of the email shows: the recipient in To, the sent cc copies in Cc.
    to: [address(message.copyOf?.to ?? message.to)],
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
    // One email, one Message-ID: replies from any copy thread with the others.
    messageId: messageIdHeader(message.copyOf?.messageId ?? message.id, domain.name),
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
  ...(input.sign && { sign: input.sign }),
});

/**
 * Who one SMTP transaction delivers to: the message's own recipient. A cc or bcc copy is a message
 * of its own with its own VERP sender; only a message accepted before that was so
 * (`separateCopies: false`) still carries its copies in its envelope.
 */
export function envelopeRecipients(message: MessageRecord): string[] {
  if (message.separateCopies || message.copyOf !== null) return [message.to.email];
  return [message.to.email, ...message.cc.map((c) => c.email), ...message.bcc.map((c) => c.email)];
}

/** The message ready for the wire: its signed bytes as `parts`, with its envelope. */
function outbound(input: ComposeInput, parts: readonly Buffer[]): OutboundMessage {
  const { message, domain } = input;
  const envelope = {
    from: verpAddress(message.id, domain.returnPathHost),
    to: envelopeRecipients(message),
  };
  return outboundMessage(message.id, envelope, parts);
}

/**
 * The signed message: its `DKIM-Signature` field, then the header block `head` and `body` as
 * composed. The body stays a part of its own, never copied: a shared body is the same buffer in
 * every message of its batch (see {@link OutboundMessage.parts}).
 */
async function signed(input: ComposeInput, head: string, body: Buffer, bodyHash: string): Promise<OutboundMessage> {
  const headBytes = Buffer.from(head);
  // The header block is signed over its bytes: a latin1 view maps them 1:1.
  const field = await dkimSignatureField(headBytes.toString('latin1'), bodyHash, signingKey(input));
  return outbound(input, [Buffer.concat([Buffer.from(field, 'latin1'), headBytes, HEADER_END]), body]);
}

/**
 * A stand-in of the same transfer-encoding class as `body`, so that MailComposer gives the same
 * top-level headers for it: base64-bound bodies went in as bytes ({@link bodyContent}), and a
 * non-ASCII character is base64 too; a 7bit body is matched by a short plain one; an empty body
 * (no part) by an empty one.
 */
function standIn(body: ComposerBody | undefined): ComposerBody | undefined {
  if (body === undefined || body === '') return body;
  return typeof body === 'string' ? 'x' : '\u00e9';
}

/**
 * Composes the first message of a shared-body batch in full and keeps its body, after checking
 * that the stand-in composition gives exactly the same top-level header block; if it does not
 * (or the tree needs nodemailer's own build), the batch is composed per message (`null`).
 */
function composeSharedBody(ctx: ComposeDeps, input: ComposeInput): SharedBody | null {
  const bodies = realBodies(input);
  const baseBoundary = randomBytes(8).toString('hex');
  const full = serializeMimeParts(composer(ctx, input, bodies, baseBoundary).compile());
  if (!full) return null;
  const stand: ComposerBodies = {
    ...(bodies.text !== undefined && { text: standIn(bodies.text) }),
    ...(bodies.html !== undefined && { html: standIn(bodies.html) }),
    ...(bodies.amp !== undefined && { amp: standIn(bodies.amp) }),
    attachments: bodies.attachments.map((a) => ({ filename: a.filename, content: 'x' })),
  };
  if (composer(ctx, input, stand, baseBoundary).compile().buildHeaders() !== full.head) {
    ctx.logger.warn('delivery: a shared body did not recompose identically; composing per message', {
      batchId: input.batch.id,
    });
    return null;
  }
  // The stand-ins are kept with the body, so they are derived once per batch.
  return { baseBoundary, body: full.body, bodyHash: dkimBodyHash(full.body), standIns: stand };
}

/**
 * Composes and signs one message: a recipient's, or one of its cc or bcc copies (bcc named in no
 * header). The envelope holds that one address ({@link envelopeRecipients}), from the message's
 * VERP address on the domain's return-path host.
 * nodemailer builds the MIME tree; src/delivery/mime-wire.ts writes it out synchronously (the
 * same bytes as nodemailer's own streaming build, which remains the fallback).
 * With `bodies`, a batch whose bodies do not vary per recipient ({@link hasSharedBody}) has its
 * MIME body composed and hashed once; each message builds and signs only its header block.
 */
export async function composeMessage(
  ctx: ComposeDeps,
  input: ComposeInput,
  bodies?: SharedBodyCache,
): Promise<OutboundMessage> {
  if (bodies && hasSharedBody(input.batch)) {
    const shared = await bodies.get(input.batch.id, async () => composeSharedBody(ctx, input));
    if (shared) {
      const head = composer(ctx, input, shared.standIns, shared.baseBoundary).compile().buildHeaders();
      return signed(input, head, shared.body, shared.bodyHash);
    }
  }
  const root = composer(ctx, input, realBodies(input)).compile();
  const wire = serializeMimeParts(root);
  if (wire) return signed(input, wire.head, wire.body, dkimBodyHash(wire.body));
  return outbound(input, [await dkimSign(await root.build(), signingKey(input))]);
}
