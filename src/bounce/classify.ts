/**
 * The one place that decides what an SMTP reply means for a message: delivered, a soft bounce
 * (retry), a hard bounce (suppress the address) or an SMTP-level drop (policy or rate limit).
 * Pure: the transports turn what happened on the wire into an {@link SmtpReply} and call this.
 *
 * Rules, first match wins (docs/delivery.md "The classifier"):
 * 1. no reply (refused, reset, timeout, TLS failure, DNS failure): soft (a transport that has no
 *    reply at all reports `noReply`, src/delivery/transport.ts, which is the same soft result);
 * 2. 2xx: delivered;
 * 3. 4xx: soft; flagged `policy` when the enhanced code is 4.7.x or the text speaks of rate limits,
 *    so that a message whose retries run out on a policy deferral ends smtpDropped, not hardBounced;
 * 4. 5xx: the enhanced code decides when given (RFC 3463): 5.7.x (security or policy) is a drop,
 *    unless the text says the mailbox does not exist; 5.2.2 (mailbox full) is soft (it clears up);
 *    other 5.x.x are hard. Without an enhanced code, policy words in the text ("spam", "blocked",
 *    "policy", "reputation", "blacklist", "rate limit") make it a drop; otherwise it is hard;
 * 5. anything else (1xx, 3xx where a final reply was due, garbage): soft.
 */
import { parseEnhancedCode } from '../model/enhanced-code.js';
import type { DeliveryResult } from '../delivery/transport.js';

/** A reply as received, or the description of a failure without one (`code` null). */
export interface SmtpReply {
  code: number | null;
  /** Reply text; the enhanced code is read from its start when `enhancedCode` is not given. */
  text: string;
  enhancedCode?: string;
}

const POLICY_TEXT =
  /\b(spam|policy|policies|blocked|block ?list(ed)?|black ?list(ed)?|deny ?list(ed)?|reputation|rate.?limit(ed)?|too many|throttl(ed|ing)|spamhaus|rbl|dnsbl|junk)\b/i;
const RATE_TEXT = /\b(rate.?limit(ed)?|too many|throttl(ed|ing)|try again later|slow down)\b/i;
const NO_MAILBOX_TEXT =
  /\b(user unknown|unknown user|no such (user|mailbox|recipient)|does not exist|mailbox unavailable|invalid recipient|recipient rejected|address rejected|not found)\b/i;

export { parseEnhancedCode };

/** Classifies one reply; see the module comment for the rules. */
export function classifySmtpReply(reply: SmtpReply): DeliveryResult {
  const { code, text } = reply;
  const enhancedCode = reply.enhancedCode ?? parseEnhancedCode(text, code);
  const base = { smtpCode: code, text, ...(enhancedCode !== undefined && { enhancedCode }) };
  if (code === null || !Number.isInteger(code) || code < 200 || code > 599) {
    return { kind: 'soft', ...base };
  }
  const cls = Math.floor(code / 100);
  if (cls === 2) return { kind: 'delivered', ...base };
  if (cls === 4) {
    const policy = enhancedCode?.startsWith('4.7.') === true || RATE_TEXT.test(text) || POLICY_TEXT.test(text);
    return { kind: 'soft', ...base, ...(policy && { policy: true }) };
  }
  if (cls === 5) {
    if (enhancedCode !== undefined) {
      const [, subject, detail] = enhancedCode.split('.').map(Number) as [number, number, number];
      if (subject === 7) return { kind: NO_MAILBOX_TEXT.test(text) ? 'hard' : 'dropped', ...base };
      if (subject === 2 && detail === 2) return { kind: 'soft', ...base };
      return { kind: 'hard', ...base };
    }
    return { kind: POLICY_TEXT.test(text) && !NO_MAILBOX_TEXT.test(text) ? 'dropped' : 'hard', ...base };
  }
  return { kind: 'soft', ...base };
}
