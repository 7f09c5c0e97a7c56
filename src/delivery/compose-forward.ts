/**
 * The wire bytes of a forward (an inbound route's `forward` action, docs/inbound.md, "Forwarding"):
 * the received message exactly as it arrived, so the author's own DKIM signature can still pass,
 * with an ARC set (RFC 8617) that seals the results mailplane found on receipt, and a DKIM signature
 * of the sending domain over it all. The envelope sender is the forward's VERP address on the
 * domain's return-path host, as for any send: SPF holds at the next hop, and a bounce comes back to
 * mailplane (recorded on the forward) rather than to the original sender.
 */
import type { KeyObject } from 'node:crypto';
import type { InboundMessageRecord } from '../store/inbound-store.js';
import type { DomainRecord, MessageRecord } from '../store/index.js';
import { DKIM_SIGNED_HEADERS, envelopeRecipients } from './compose.js';
import { dkimSign } from './dkim.js';
import type { SignFunction } from './dkim-signer.js';
import { outboundMessage, type OutboundMessage } from './transport.js';
import { verpAddress } from './verp.js';

/** What {@link composeForward} needs. */
export interface ForwardInput {
  /** The forward: its id names the VERP sender, its recipient the envelope's. */
  message: MessageRecord;
  /** The message received, with its raw bytes. */
  received: InboundMessageRecord & { raw: Buffer };
  domain: DomainRecord;
  dkimKey: KeyObject;
  /** The host named in the seal's authentication results (the receiving host). */
  authServId: string;
  /** Where the DKIM signature is made (delivery's signing threads); default libuv's pool. */
  sign?: SignFunction;
}

/** Whether a new ARC set may seal a chain of this verdict: one that failed is not carried on (RFC 8617 5.1.2). */
const sealable = (verdict: string) => verdict === 'none' || verdict === 'pass';

/** A verdict word as it may stand in a header: mailauth's words, anything else `none`. */
const word = (verdict: string) => (/^[a-z]+$/.test(verdict) ? verdict : 'none');

/** An address as a header property value: without characters that would end or fold the header. */
const propertyValue = (text: string) => text.replace(/[\s;()"\\]/g, '');

/**
 * The `ARC-Authentication-Results` payload (RFC 8601 syntax, after `i=N;`): what mailplane found
 * when the message arrived.
 */
export function receivedAuthResults(received: InboundMessageRecord, authServId: string): string {
  const { auth, mailFrom, from } = received;
  const fromDomain = from.slice(from.lastIndexOf('@') + 1);
  const parts = [
    `spf=${word(auth.spf)}${mailFrom ? ` smtp.mailfrom=${propertyValue(mailFrom)}` : ''}`,
    `dkim=${word(auth.dkim)}${fromDomain ? ` header.from=${propertyValue(fromDomain)}` : ''}`,
    `dmarc=${word(auth.dmarc)}${fromDomain ? ` header.from=${propertyValue(fromDomain)}` : ''}`,
    `arc=${word(auth.arc)}`,
  ];
  return `${propertyValue(authServId)};\r\n ${parts.join(';\r\n ')}`;
}

/** The raw message with CRLF line breaks (SMTP's), which both signatures are computed over. */
function withCrlfBytes(raw: Buffer): Buffer {
  let bare = false;
  for (let at = raw.indexOf(0x0a); at !== -1; at = raw.indexOf(0x0a, at + 1)) {
    if (at === 0 || raw[at - 1] !== 0x0d) {
      bare = true;
      break;
    }
  }
  return bare ? Buffer.from(raw.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1') : raw;
}

/**
 * The ARC set sealing what mailplane found on receipt, or nothing when the received chain cannot
 * be sealed. mailauth is loaded here, on first use, not with the library (src/inbound/authentication.ts).
 */
async function arcSet(raw: Buffer, input: ForwardInput): Promise<Buffer> {
  const { received, domain, dkimKey } = input;
  if (!sealable(received.auth.arc)) return Buffer.alloc(0);
  const { sealMessage } = await import('mailauth');
  return sealMessage(raw, {
    signingDomain: domain.name,
    selector: domain.dkimSelector,
    privateKey: dkimKey.export({ type: 'pkcs8', format: 'pem' }),
    authResults: receivedAuthResults(received, input.authServId),
    cv: received.auth.arc,
  });
}

/** The forward ready for the wire: ARC set, DKIM signature, then the message as received. */
export async function composeForward(input: ForwardInput): Promise<OutboundMessage> {
  const { message, received, domain, dkimKey } = input;
  const raw = withCrlfBytes(received.raw);
  const seal = await arcSet(raw, input);
  const signed = await dkimSign(Buffer.concat([seal, raw]), {
    domainName: domain.name,
    selector: domain.dkimSelector,
    privateKey: dkimKey,
    headerFieldNames: DKIM_SIGNED_HEADERS,
    ...(input.sign && { sign: input.sign }),
  });
  const envelope = { from: verpAddress(message.id, domain.returnPathHost), to: envelopeRecipients(message) };
  return outboundMessage(message.id, envelope, [signed]);
}
