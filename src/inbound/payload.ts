/**
 * The JSON an inbound route's webhook receives (docs/inbound.md, "The webhook payload"): the
 * envelope, the parsed headers and parts, the attachments (inline in base64 up to a size, beyond
 * it a signed URL), the authentication results, and the sent message a reply answers. Pure: made
 * from what the listener read, so it can be built and tested without a socket.
 */
import type { AddressObject, ParsedMail } from 'mailparser';
import { nsToMs } from '../model/time.js';
import type { InboundAuthResults, InboundMessageRecord } from '../store/inbound-store.js';

/** A mailbox of an address header. */
export interface PayloadAddress {
  address: string;
  name: string;
}

/** One attachment: its bytes inline (`content`, base64) or where to fetch them (`url`). */
export interface PayloadAttachment {
  filename: string;
  contentType: string;
  size: number;
  /** The `Content-ID` without angle brackets; `''` when none. */
  contentId: string;
  /** Base64, when `size` is within the inline limit. */
  content?: string;
  /** A signed URL valid for a limited time; `null` when the bytes were not kept (the raw message was larger than kept). */
  url?: string | null;
}

/** The body of an `inbound.received` POST. */
export interface InboundPayload {
  type: 'inbound.received';
  id: string;
  receivedAt: string;
  routeId: number | null;
  envelope: { mailFrom: string; rcptTo: string };
  from: PayloadAddress[];
  to: PayloadAddress[];
  cc: PayloadAddress[];
  replyTo: PayloadAddress[];
  subject: string;
  messageId: string;
  inReplyTo: string;
  references: string[];
  text: string | null;
  html: string | null;
  /** `[name, value]` in the order received, at most {@link MAX_PAYLOAD_HEADERS}. */
  headers: Array<[string, string]>;
  attachments: PayloadAttachment[];
  auth: InboundAuthResults;
  /** The id of the sent message this one answers, `null` when none of mailplane's. */
  inReplyToMessageId: string | null;
  /** The MIME structure could not be read: `text` holds the raw message as text, the rest is empty. */
  malformed: boolean;
}

/** Headers kept in the payload; a message with more is cut (the raw message keeps them all). */
export const MAX_PAYLOAD_HEADERS = 200;
/** Characters kept of one header's value. */
export const MAX_PAYLOAD_HEADER_VALUE = 8_192;

/** What {@link inboundPayload} needs besides the message. */
export interface PayloadOptions {
  /** Attachments up to this size are inline. */
  inlineAttachmentBytes: number;
  /** The signed URL of attachment `index`, or `null` when its bytes cannot be served. */
  attachmentUrl: (index: number) => string | null;
}

/** The mailboxes of an address header, groups flattened, those without an address left out. */
export function addressesOf(header: AddressObject | AddressObject[] | undefined): PayloadAddress[] {
  const out: PayloadAddress[] = [];
  for (const object of header === undefined ? [] : Array.isArray(header) ? header : [header]) {
    for (const entry of object.value) {
      for (const mailbox of entry.group ?? [entry]) {
        if (mailbox.address) out.push({ address: mailbox.address, name: mailbox.name ?? '' });
      }
    }
  }
  return out;
}

/** `value` without the angle brackets around it. */
const unbracketed = (value: string | undefined): string => (value ?? '').trim().replace(/^<([^>]*)>$/, '$1');

/** The headers of a parsed message as received: name and unfolded value, bounded. */
export function headerPairs(parsed: Pick<ParsedMail, 'headerLines'>): Array<[string, string]> {
  return parsed.headerLines.slice(0, MAX_PAYLOAD_HEADERS).map(({ line }) => {
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/\r?\n[ \t]+/g, ' ');
    return [name.trim(), value.trim().slice(0, MAX_PAYLOAD_HEADER_VALUE)];
  });
}

/** The `References` ids of a parsed message, brackets removed. */
export function referencesOf(parsed: Pick<ParsedMail, 'references'>): string[] {
  const references = parsed.references;
  return (references === undefined ? [] : Array.isArray(references) ? references : [references]).map(unbracketed);
}

/**
 * The payload of `record`, received as `raw` and parsed as `parsed` (`null`: its MIME could not
 * be read, and the payload carries the raw text).
 */
export function inboundPayload(
  record: InboundMessageRecord,
  parsed: ParsedMail | null,
  raw: Buffer,
  options: PayloadOptions,
): InboundPayload {
  const base = {
    type: 'inbound.received' as const,
    id: record.id,
    receivedAt: new Date(nsToMs(record.receivedAt)).toISOString(),
    routeId: record.routeId,
    envelope: { mailFrom: record.mailFrom, rcptTo: record.rcptTo },
    auth: record.auth,
    inReplyToMessageId: record.inReplyToMessageId,
  };
  if (parsed === null) {
    return {
      ...base,
      from: [],
      to: [],
      cc: [],
      replyTo: [],
      subject: '',
      messageId: '',
      inReplyTo: '',
      references: [],
      text: raw.toString('utf8'),
      html: null,
      headers: [],
      attachments: [],
      malformed: true,
    };
  }
  return {
    ...base,
    from: addressesOf(parsed.from),
    to: addressesOf(parsed.to),
    cc: addressesOf(parsed.cc),
    replyTo: addressesOf(parsed.replyTo),
    subject: parsed.subject ?? '',
    messageId: unbracketed(parsed.messageId),
    inReplyTo: unbracketed(parsed.inReplyTo),
    references: referencesOf(parsed),
    text: parsed.text ?? null,
    html: typeof parsed.html === 'string' ? parsed.html : null,
    headers: headerPairs(parsed),
    attachments: parsed.attachments.map((attachment, index): PayloadAttachment => {
      const described = {
        filename: attachment.filename ?? '',
        contentType: attachment.contentType,
        size: attachment.size ?? attachment.content.length,
        contentId: unbracketed(attachment.contentId),
      };
      return described.size <= options.inlineAttachmentBytes
        ? { ...described, content: attachment.content.toString('base64') }
        : { ...described, url: options.attachmentUrl(index) };
    }),
    malformed: false,
  };
}
