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

const isBlank = (code: number) => code === 0x20 || code === 0x09;

/**
 * The first value of field `name` in `text` (case-insensitive, folded lines joined). The start of
 * the field is found by a pattern with no repetition to backtrack over; its folded lines are then
 * followed by hand. Reports come from anyone on the internet: the text is read forward once.
 */
function field(text: string, name: string): string | undefined {
  const start = new RegExp(`^${name}[ \\t]*:`, 'im').exec(text);
  if (!start) return undefined;
  const from = start.index + start[0].length;
  let end = text.indexOf('\n', from);
  // Folded: the value goes on while the next line starts with a space or a tab.
  while (end !== -1 && isBlank(text.charCodeAt(end + 1))) end = text.indexOf('\n', end + 1);
  return text
    .slice(from, end === -1 ? text.length : end)
    .replace(/\r?\n[ \t]+/g, ' ')
    .trim();
}

/** The address of a `Final-Recipient` value (`rfc822; user@example.com`): the first word after `;` with an `@` inside. */
function finalRecipient(value: string | undefined): string | undefined {
  const semicolon = value?.indexOf(';') ?? -1;
  if (semicolon === -1) return undefined;
  return value!
    .slice(semicolon + 1)
    .split(/\s+/)
    .find((word) => word.indexOf('@') > 0 && word.lastIndexOf('@') < word.length - 1);
}

const REPORT_PART = /^message\/(global-)?(delivery-status|feedback-report)$/i;

/** Reads `mail` as a DSN or an ARF report. */
export function readReport(mail: ParsedMail): InboundReport {
  const parts = mail.attachments.filter((a) => REPORT_PART.test(a.contentType)).map((a) => a.content.toString('utf8'));
  const text = [typeof mail.text === 'string' ? mail.text : '', ...parts].join('\n');
  const feedbackType = field(text, 'Feedback-Type')?.toLowerCase();
  if (feedbackType) {
    if (feedbackType !== 'abuse' && feedbackType !== 'fraud')
      return { kind: 'other', why: `feedback type ${feedbackType}` };
    const recipient = field(text, 'Original-Rcpt-To')?.replace(/^<|>$/g, '');
    return { kind: 'complaint', feedbackType, ...(recipient && isEmailAddress(recipient) && { recipient }) };
  }
  const action = field(text, 'Action')?.toLowerCase();
  if (!action) return { kind: 'other', why: 'not a delivery status notification' };
  if (action !== 'failed') return { kind: 'other', why: `action ${action}` };
  const status = /^[245]\.\d{1,3}\.\d{1,3}/.exec(field(text, 'Status') ?? '')?.[0];
  // "Diagnostic-Code: smtp; 550 5.1.1 user unknown": the part after the type is the server's reply.
  const diagnostic = (field(text, 'Diagnostic-Code') ?? '').replace(/^[a-z-]+;\s*/i, '');
  const recipient = finalRecipient(field(text, 'Final-Recipient'));
  return {
    kind: 'failed',
    ...(status && { status }),
    diagnostic: diagnostic || `Status: ${status ?? 'unknown'}`,
    ...(recipient && { recipient }),
  };
}

// The host part stops at the next `<`, so each attempt reads up to the next one at most: with
// `[^>\s]+` a quoted text of `<uuid@x` repeated was read to its end from every `<` (12.9 s).
const OWN_MESSAGE_ID = /<([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@[^<>\s]+>/i;
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
