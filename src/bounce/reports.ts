/**
 * What an inbound report says: a delivery status notification (DSN, RFC 3464) or an abuse report
 * (ARF, RFC 5965). mailparser reads the MIME; it folds a `message/delivery-status` part into the
 * message's text and keeps a `message/feedback-report` part as an attachment, so the fields are read
 * as `Name: value` lines from the text and those parts together. That also reads the many bounces
 * that are not RFC 3464 but carry the same fields.
 */
import type { ParsedMail } from 'mailparser';
import { isEmailAddress } from '../model/email-address.js';

/** One report, as far as mailplane acts on it. */
export type InboundReport =
  /** A final failure (`Action: failed`): the recipient's server refused the message after accepting it. */
  | { kind: 'failed'; status?: string; diagnostic: string; recipient?: string }
  /**
   * A complaint (`Feedback-Type: abuse` or `fraud`): the recipient marked the message as spam.
   * `recipient`: the report's `Original-Rcpt-To`, when the provider gives it.
   */
  | { kind: 'complaint'; feedbackType: string; recipient?: string }
  /** Anything else: a delay notice, a success notice, an auto-reply. Nothing to do. */
  | { kind: 'other'; why: string };

/** The first value of field `name` in `text` (case-insensitive, folded lines joined). */
function field(text: string, name: string): string | undefined {
  const match = new RegExp(`^${name}[ \\t]*:[ \\t]*(.*(?:\\r?\\n[ \\t]+.*)*)`, 'im').exec(text);
  return match ? match[1]!.replace(/\r?\n[ \t]+/g, ' ').trim() : undefined;
}

const REPORT_PART = /^message\/(global-)?(delivery-status|feedback-report)$/i;

/** Reads `mail` as a DSN or an ARF report. */
export function readReport(mail: ParsedMail): InboundReport {
  const parts = mail.attachments.filter((a) => REPORT_PART.test(a.contentType)).map((a) => a.content.toString('utf8'));
  const text = [typeof mail.text === 'string' ? mail.text : '', ...parts].join('\n');
  const feedbackType = field(text, 'Feedback-Type')?.toLowerCase();
  if (feedbackType) {
    if (feedbackType !== 'abuse' && feedbackType !== 'fraud') return { kind: 'other', why: `feedback type ${feedbackType}` };
    const recipient = field(text, 'Original-Rcpt-To')?.replace(/^<|>$/g, '');
    return { kind: 'complaint', feedbackType, ...(recipient && isEmailAddress(recipient) && { recipient }) };
  }
  const action = field(text, 'Action')?.toLowerCase();
  if (!action) return { kind: 'other', why: 'not a delivery status notification' };
  if (action !== 'failed') return { kind: 'other', why: `action ${action}` };
  const status = /^[245]\.\d{1,3}\.\d{1,3}/.exec(field(text, 'Status') ?? '')?.[0];
  // "Diagnostic-Code: smtp; 550 5.1.1 user unknown": the part after the type is the server's reply.
  const diagnostic = (field(text, 'Diagnostic-Code') ?? '').replace(/^[a-z-]+;\s*/i, '');
  const recipient = /;\s*(\S+@\S+)/.exec(field(text, 'Final-Recipient') ?? '')?.[1];
  return { kind: 'failed', ...(status && { status }), diagnostic: diagnostic || `Status: ${status ?? 'unknown'}`, ...(recipient && { recipient }) };
}

const OWN_MESSAGE_ID = /<([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@[^>\s]+>/i;
const VERP = /\bb\+([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@/i;

/**
 * The mailplane message a report is about, from the original message it quotes: its VERP
 * Return-Path, or its `Message-ID` (mailplane's are `<message id@domain>`). Complaints arrive at a
 * feedback address rather than the VERP one, so this is how they are matched.
 */
export function quotedMessageId(raw: Buffer): string | null {
  // The report's own header block (its own Message-ID) is not the original message.
  const all = raw.toString('latin1');
  const text = all.slice(Math.max(0, all.search(/\r?\n\r?\n/)));
  const match = VERP.exec(text) ?? OWN_MESSAGE_ID.exec(text);
  return match ? match[1]!.toLowerCase() : null;
}
