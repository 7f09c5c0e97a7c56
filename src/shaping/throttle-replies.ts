/**
 * What a mailbox provider's throttling or blocking reply asks of the sending source (an IP or a
 * TPSP) for that provider: slow down, stay away for a while, or give up on the message. ONE table
 * (below) of the large providers' real reply texts, each row citing where the text was found;
 * {@link throttleActionFor} reads it. Pure: delivery (issue 29) and the reputation guard (issue 28)
 * act on the answer. A reply the table does not name is not a throttle: the classifier of
 * src/bounce/classify.ts alone decides what it means for the message. docs/shaping.md lists the rows.
 *
 * Matching is linear in the reply's length: the text is folded once (reply-words.ts) and each row
 * looks for a literal or runs a regular expression made only of literal alternatives (no nested or
 * unbounded quantifiers), so a hostile receiver's 64 KiB reply costs one pass per row.
 */
import { MailboxProvider } from '../routing/providers.js';
import { matchesReply, type ReplyPattern, type ReplySeen } from './reply-words.js';

export type { ReplySeen } from './reply-words.js';

/**
 * Why the provider pushed back: `throttle` (too fast or too much for the source's reputation),
 * `blocklist` (the source is listed or refused by policy: the reputation guard opens an incident
 * and pauses it for that provider, issue 28), or `content` (the message itself was judged spam: the
 * source is not at fault for this provider as a whole).
 */
export type ThrottleKind = 'throttle' | 'blocklist' | 'content';

/**
 * What the sending source does about a reply, for that provider only:
 * - `slow-down`: halve the source x provider rate, and recover step by step after a quiet period;
 * - `suspend`: open no new connection from the source to the provider for `forMs` (its messages wait
 *   or overflow where the pool allows); blocklist rows use the longer `BLOCKLIST_PAUSE_MS`;
 * - `bounce`: the message fails now, as the classifier says (a 5.7.x refusal is a drop, so the address
 *   is not suppressed); the source is not slowed, since other messages are not refused.
 * `reason` is a stable UPPER_SNAKE code for logs, metrics, the API and incidents.
 */
export type ThrottleAction =
  | { readonly action: 'slow-down'; readonly kind: ThrottleKind; readonly reason: string }
  | { readonly action: 'suspend'; readonly forMs: number; readonly kind: ThrottleKind; readonly reason: string }
  | { readonly action: 'bounce'; readonly kind: ThrottleKind; readonly reason: string };

/** One row: the providers it applies to (`'any'`: every provider, consulted after a provider's own rows). */
export interface ThrottleReplyRow {
  readonly providers: readonly MailboxProvider[] | 'any';
  readonly match: ReplyPattern;
  readonly then: ThrottleAction;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** A temporary reputation block: the providers lift these within the hour when the traffic stops. */
export const REPUTATION_SUSPEND_MS = HOUR;
/** Yahoo asks senders under a complaint deferral to stop for four hours before trying again. */
export const COMPLAINT_SUSPEND_MS = 4 * HOUR;
/**
 * A blocklist or policy refusal: waiting does not clear it (delisting does, in hours to days), so
 * the source is paused for a day, then probed by the next message.
 */
export const BLOCKLIST_PAUSE_MS = 24 * HOUR;

const P = MailboxProvider;
const slowDown = (reason: string): ThrottleAction => ({ action: 'slow-down', kind: 'throttle', reason });
const suspend = (reason: string, forMs: number, kind: ThrottleKind = 'throttle'): ThrottleAction => ({
  action: 'suspend',
  forMs,
  kind,
  reason,
});
const pause = (reason: string): ThrottleAction => suspend(reason, BLOCKLIST_PAUSE_MS, 'blocklist');
const bounce = (reason: string): ThrottleAction => ({ action: 'bounce', kind: 'content', reason });

/** The table. Within a provider, and then within `'any'`, the first row that matches decides. */
export const THROTTLE_REPLIES: readonly ThrottleReplyRow[] = [
  // Gmail: https://support.google.com/a/answer/3726730 (Google's SMTP error reference, as copied at
  // https://kb.raramuridesign.com/a-guide-to-smtp-errors.html), https://smtpfieldmanual.com/provider/google,
  // https://mythicintel.com/blog/421-from-gmail (the whole multi-line 4.7.28 reply).
  // Every 4.7.28 (IP, SPF, DKIM or URL domain "temporarily rate limited"): the rate is the problem.
  { providers: [P.Gmail], match: { enhanced: '4.7.28' }, then: slowDown('GMAIL_RATE_LIMITED') },
  // 421 4.7.0 "... very low reputation of the sending IP address ... temporarily rate limited".
  {
    providers: [P.Gmail],
    match: { code: '4xx', text: 'temporarily rate limited' },
    then: slowDown('GMAIL_RATE_LIMITED'),
  },
  // 421 4.7.0 "unusual rate of unsolicited mail ... has been temporarily blocked": a block, not a
  // rate: slowing down would keep knocking on a closed door.
  {
    providers: [P.Gmail],
    match: { code: '4xx', text: 'unusual rate of unsolicited mail' },
    then: suspend('GMAIL_UNSOLICITED_RATE_BLOCKED', REPUTATION_SUSPEND_MS),
  },
  // 421 4.7.0 "Try again later, closing connection." at the greeting: Gmail's connection-rate guard.
  {
    providers: [P.Gmail],
    match: { code: 421, text: 'try again later, closing connection' },
    then: slowDown('GMAIL_CONNECTION_RATE'),
  },
  // 550 5.7.1 "... suspicious due to the very low reputation of the sending IP address ... blocked".
  {
    providers: [P.Gmail],
    match: { code: '5xx', text: 'very low reputation of the sending ip' },
    then: pause('GMAIL_IP_REPUTATION_BLOCKED'),
  },
  // 550 5.7.1 "... this message is likely unsolicited mail ... this message has been blocked": the
  // verdict is on this message's content; retrying it or pausing the IP changes nothing.
  {
    providers: [P.Gmail],
    match: { code: '5xx', text: 'likely unsolicited mail' },
    then: bounce('GMAIL_BLOCKED_AS_SPAM'),
  },

  // Microsoft (Outlook.com, Microsoft 365): https://learn.microsoft.com/en-us/exchange/mail-flow-best-practices/non-delivery-reports-in-exchange-online/non-delivery-reports-in-exchange-online
  // (4.7.650-652, 5.7.606-649), https://pastebin.com/EH1TUb0X (5.7.606 as received),
  // https://support.sendgrid.com/hc/en-us/articles/38465017420955 (S3140/S3150),
  // https://www.coldrelay.com/smtp-errors/550-5-7-1-spam-policy/at-microsoft-365 (Spamhaus, content filter).
  // "451 4.7.650 The mail server [x] has been temporarily rate limited due to IP reputation. (S775)".
  { providers: [P.Microsoft], match: { enhanced: '4.7.650' }, then: slowDown('MICROSOFT_RATE_LIMITED') },
  { providers: [P.Microsoft], match: { enhanced: '4.7.651' }, then: slowDown('MICROSOFT_RATE_LIMITED') },
  // "4.7.652 The mail server [x] has exceeded the maximum number of connections."
  { providers: [P.Microsoft], match: { enhanced: '4.7.652' }, then: slowDown('MICROSOFT_TOO_MANY_CONNECTIONS') },
  // "550 5.7.606 Access denied, banned sending IP [x]. To request removal from this list please visit
  // https://sender.office.com/": 5.7.606 to 5.7.649 all say it; only delisting lifts it.
  {
    providers: [P.Microsoft],
    match: { code: '5xx', text: 'banned sending ip' },
    then: pause('MICROSOFT_BANNED_IP'),
  },
  // "550 5.7.1 Unfortunately, messages from [x] weren't sent. Please contact your Internet service
  // provider since part of their network is on our block list (S3150)." (or S3140; older replies
  // say AS3150 or SC-001 with the same words).
  { providers: [P.Microsoft], match: { code: '5xx', text: /\ba?s3150\b/ }, then: pause('MICROSOFT_S3150') },
  { providers: [P.Microsoft], match: { code: '5xx', text: /\ba?s3140\b/ }, then: pause('MICROSOFT_S3140') },
  {
    providers: [P.Microsoft],
    match: { code: '5xx', text: 'network is on our block list' },
    then: pause('MICROSOFT_BLOCK_LIST'),
  },
  // "550 5.7.1 Message rejected as spam by Content Filtering.": this message's content.
  {
    providers: [P.Microsoft],
    match: { code: '5xx', text: 'rejected as spam by content filtering' },
    then: bounce('MICROSOFT_CONTENT_FILTERED'),
  },

  // Yahoo and AOL (one platform): https://help.yahoo.com/kb/SLN3436.html (TS03),
  // https://smtpfieldmanual.com/provider/yahoo/421/4.7.0 (TSS04),
  // http://www.smtp-error-codes.info/bounce/yahoo/bounce_421_4.7.0_TS02.php (TS02),
  // http://blog.deliverability.com/2008/09/a-few-days-ago.html (TS01, and the four-hour pause).
  // "421 4.7.0 [TSS04] Messages from x temporarily deferred due to unexpected volume or user complaints".
  { providers: [P.Yahoo, P.Aol], match: { code: '4xx', text: '[tss04]' }, then: slowDown('YAHOO_TSS04') },
  // "[TS01] Messages from x temporarily deferred": a young or quiet IP's reputation, not its rate.
  {
    providers: [P.Yahoo, P.Aol],
    match: { code: '4xx', text: '[ts01]' },
    then: suspend('YAHOO_TS01', REPUTATION_SUSPEND_MS),
  },
  // "[TS02] Messages from x temporarily deferred due to user complaints": Yahoo asks for four hours.
  {
    providers: [P.Yahoo, P.Aol],
    match: { code: '4xx', text: '[ts02]' },
    then: suspend('YAHOO_TS02', COMPLAINT_SUSPEND_MS),
  },
  // "421 4.7.1 [TS03] All messages from x will be permanently deferred; Retrying will NOT succeed.":
  // a 4xx in form, a block in fact.
  { providers: [P.Yahoo, P.Aol], match: { code: '4xx', text: '[ts03]' }, then: pause('YAHOO_TS03') },

  // iCloud: https://smtp.codes/icloud, https://bentonow.com/smtp-errors/apple,
  // https://www.suped.com/knowledge/email-deliverability/troubleshooting/what-does-the-apple-email-error-554-570-blocked-mean-and-how-can-i-resolve-it
  // "421 4.7.1 Messages to x deferred due to excessive volume. Try again later", "421 4.7.0 me.com
  // Error: too many errors", "451 4.7.1 Service unavailable - try again later" (top-of-the-hour load).
  {
    providers: [P.Icloud],
    match: { code: '4xx', text: /excessive volume|too many errors|service unavailable - try again later/ },
    then: slowDown('ICLOUD_RATE_LIMITED'),
  },
  // "550 5.7.1 [CS01] Message rejected due to local policy" (CS01 to CS09: the source's reputation),
  // "554 5.7.0 Blocked".
  {
    providers: [P.Icloud],
    match: { code: '5xx', enhanced: '5.7.', text: /\[cs0\d\]|\bblocked\b/ },
    then: pause('ICLOUD_BLOCKED'),
  },

  // Comcast: http://postmaster.comcast.net/mail-error-codes.html (codes),
  // http://security.comcast.net/get-help/Mail-Delivery-Error-Messages.aspx ("Too many sessions opened").
  { providers: [P.Comcast], match: { code: '4xx', text: 'rl000001' }, then: slowDown('COMCAST_RL000001') },
  {
    providers: [P.Comcast],
    match: { code: 421, text: 'too many sessions opened' },
    then: slowDown('COMCAST_TOO_MANY_SESSIONS'),
  },
  // BL000000: "sent mail in patterns characteristic of spam"; BL000001 and up: listed on Spamhaus
  // ZEN, Cloudmark CSI or SenderScore (one bit each).
  { providers: [P.Comcast], match: { code: '5xx', text: 'bl000000' }, then: pause('COMCAST_BL000000') },
  { providers: [P.Comcast], match: { code: '5xx', text: /\bbl000[01][01][01]\b/ }, then: pause('COMCAST_BLOCKLISTED') },

  // GMX and WEB.DE (United Internet, one platform): https://postmaster.gmx.com/en/error-messages,
  // https://www.suped.com/learn/email-deliverability/how-to-resolve-smtp-421-errors-with-webde-and-gmxnet-due-to-rate-limiting
  // "421 ... Nemesis ESMTP Service not available ... Too many messages have been received in a short
  // period of time. Please try again in a few hours and reduce the sending rate."
  {
    providers: [P.Gmx],
    match: { code: '4xx', text: /too many messages|rate limit reached/ },
    then: slowDown('GMX_RATE_LIMITED'),
  },
  // "554-No SMTP service 554-IP address is block listed. 554 For explanation visit ...".
  {
    providers: [P.Gmx],
    match: { code: '5xx', text: /ip address is (block|black) ?listed/ },
    then: pause('GMX_IP_LISTED'),
  },

  // Mail.ru and Yandex: https://check.live-direct-marketing.online/blog/email-throttling-mailru-yandex-cis-quotas
  // (a deliverability vendor's record of the replies: neither provider publishes its own list).
  // Mail.ru: "421 4.7.0 IP frequency limit exceeded".
  {
    providers: [P.MailRu],
    match: { code: '4xx', text: /frequency limit|rate ?limit/ },
    then: slowDown('MAILRU_RATE_LIMITED'),
  },
  // Yandex: "451 4.7.1 too many connections from your host", "451 4.7.1 Sorry, the service is
  // currently unavailable. Please come back later."
  {
    providers: [P.Yandex],
    match: { code: '4xx', text: /too many connections|service is currently unavailable/ },
    then: slowDown('YANDEX_RATE_LIMITED'),
  },

  // Any provider. Connection limits, as Postfix, Exim and the providers above word them:
  // "421 Too many concurrent SMTP connections from this IP address; please try again later.",
  // "452 4.3.2 Connection rate limit exceeded." (https://pastebin.com/9ViZSXyu, sisimai's toomanyconn).
  {
    providers: 'any',
    match: {
      code: '4xx',
      text: /too many (concurrent (smtp )?)?(connections|sessions)|connection rate limit|maximum number of connections/,
    },
    then: slowDown('TOO_MANY_CONNECTIONS'),
  },
  // Spamhaus DBL lists domains found in the message (its links), not the source: the message's fault.
  // "550 5.7.1 Your email was rejected due to having a domain present in the Spamhaus DBL" (iCloud).
  { providers: 'any', match: { text: /spamhaus dbl|dbl\.spamhaus\.org/ }, then: bounce('SPAMHAUS_DBL_LISTED') },
  // "554 5.7.1 Service unavailable; Client host [x] blocked using zen.spamhaus.org;
  // https://www.spamhaus.org/query/ip/x" (https://www.simplefastwebsites.com/errors/email/smtp-554-5-7-1-client-host-blocked-spamhaus/),
  // "550 5.7.1 Email rejected because x is listed by zen.spamhaus.org" (http://www.spamhaus.org/lookup.lasso).
  { providers: 'any', match: { text: 'spamhaus' }, then: pause('SPAMHAUS_LISTED') },
  // "554 Service unavailable; Client host [x] blocked using Barracuda Reputation"
  // (http://tig.csail.mit.edu/wiki/TIG/EmailBlockedByBarracuda), b.barracudacentral.org.
  { providers: 'any', match: { text: /barracuda( reputation|central)/ }, then: pause('BARRACUDA_LISTED') },
  // "554 5.7.1 Rejected - your IP address was found in a blacklist for sending spam. Please visit:
  // http://spamcop.net/bl.shtml?x" (https://blog.inframes.com/2013/08), bl.spamcop.net.
  { providers: 'any', match: { text: 'spamcop' }, then: pause('SPAMCOP_LISTED') },
  // Any other DNSBL in Postfix's reject_rbl_client words: "Client host [x] blocked using <zone>".
  {
    providers: 'any',
    match: { code: '5xx', text: /client host \[[0-9a-f.:]{1,45}\] blocked using / },
    then: pause('DNSBL_LISTED'),
  },
];

/** The rows for each provider: its own in table order, then the `'any'` rows. */
const ROWS_BY_PROVIDER: ReadonlyMap<MailboxProvider, readonly ThrottleReplyRow[]> = new Map(
  Object.values(MailboxProvider).map((provider) => [
    provider,
    [
      ...THROTTLE_REPLIES.filter((row) => row.providers !== 'any' && row.providers.includes(provider)),
      ...THROTTLE_REPLIES.filter((row) => row.providers === 'any'),
    ],
  ]),
);

/**
 * What the sending source should do about `reply` from `provider`: the first matching row of that
 * provider, then of `'any'`; undefined when the reply is not a throttle or a block (an ordinary soft
 * or hard bounce, or a delivery).
 *
 * @example
 * throttleActionFor(MailboxProvider.Yahoo, { code: 421, text: '421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred' });
 * // { action: 'slow-down', kind: 'throttle', reason: 'YAHOO_TSS04' }
 */
export function throttleActionFor(provider: MailboxProvider, reply: ReplySeen): ThrottleAction | undefined {
  if (reply.code !== null && reply.code < 400) return undefined;
  const rows = ROWS_BY_PROVIDER.get(provider) ?? [];
  const matches = matchesReply(reply);
  return rows.find((row) => matches(row.match))?.then;
}
