/**
 * The browser or mail client family of a User-Agent, in the reference's `UserAgent` shape
 * (`Family`, `Major`, `Minor`, `Patch`), for Opened and Clicked events. Browsers are named by
 * ua-parser-js (its regex table is maintained upstream, so new browsers need no change here); mail
 * clients and mailbox providers' image proxies, which it does not know, are added as extensions
 * tried before its own table. Anything it cannot name is named by its first product token. Best
 * effort: the raw string travels alongside as `rawUserAgent`.
 */
import UAParser from 'ua-parser-js';

/** The reference's `UserAgent`. */
export interface ParsedUserAgent {
  Family: string;
  Major: string;
  Minor: string;
  Patch: string;
}

/** A mailbox provider's proxy that fetches images (so opens) on the reader's behalf. */
export type MailProxy = 'GoogleImageProxy' | 'YahooMailProxy' | 'AppleMailPrivacyProtection';

/**
 * Characters of a User-Agent read: real ones are a few hundred. Some patterns (here and in the
 * parser's table) read to the end of the value from each token, so on a crafted header their time
 * would grow with the square of its length; a bounded prefix keeps each parse bounded.
 */
const USER_AGENT_READ = 512;

/**
 * Apple Mail Privacy Protection fetches every image on delivery through Apple's proxies with this
 * bare User-Agent and nothing else; Apple Mail itself sends a full WebKit one.
 */
const APPLE_PRIVACY_PROXY = 'Mozilla/5.0';

/**
 * Mail clients and proxies ua-parser-js does not name, in its extension format (regexes, then the
 * name and the version capture). Proxies come first: Gmail's carries an old Firefox token.
 */
const MAIL_CLIENTS: Record<string, unknown> = {
  browser: [
    [/(GoogleImageProxy)/],
    [UAParser.BROWSER.NAME],
    [/(YahooMailProxy)/],
    [UAParser.BROWSER.NAME],
    [/Microsoft Outlook ([\d.]+)/],
    [UAParser.BROWSER.VERSION, [UAParser.BROWSER.NAME, 'Outlook']],
    [/Thunderbird\/([\d.]+)/],
    [UAParser.BROWSER.VERSION, [UAParser.BROWSER.NAME, 'Thunderbird']],
  ],
};

/** One parser for the process: parsing is synchronous, so `setUA` then `getResult` never interleave. */
const parser = new UAParser(undefined, MAIL_CLIENTS);

/** Which mailbox provider's image proxy sent `header`, if one did. */
export function mailProxyOf(header: string): MailProxy | undefined {
  const raw = header.slice(0, USER_AGENT_READ);
  if (raw.includes('GoogleImageProxy')) return 'GoogleImageProxy';
  if (raw.includes('YahooMailProxy')) return 'YahooMailProxy';
  if (raw.trim() === APPLE_PRIVACY_PROXY) return 'AppleMailPrivacyProtection';
  return undefined;
}

/** Parses `header` (a User-Agent header value) into its family and version. */
export function parseUserAgent(header: string): ParsedUserAgent {
  const raw = header.slice(0, USER_AGENT_READ);
  const proxy = mailProxyOf(raw);
  // Proxies name no version worth keeping: Gmail's "Firefox/11.0" is not the reader's.
  if (proxy) return { Family: proxy, Major: '', Minor: '', Patch: '' };
  const { browser, engine, os } = parser.setUA(raw).getResult();
  if (browser.name === 'WebKit' && (os.name === 'Mac OS' || os.name === 'iOS')) {
    // A WebKit token with no Safari one on an Apple system is Apple Mail's image loader.
    return withVersion('Apple Mail', engine.version ?? browser.version);
  }
  if (browser.name) return withVersion(browser.name, browser.version);
  const product = /^([A-Za-z][\w.-]*)(?:\/(\d+)(?:\.(\d+))?(?:\.(\d+))?)?/.exec(raw.trim());
  if (product)
    return { Family: product[1]!, Major: product[2] ?? '', Minor: product[3] ?? '', Patch: product[4] ?? '' };
  return { Family: 'Other', Major: '', Minor: '', Patch: '' };
}

/** `Family` with the first three dotted parts of `version`. */
function withVersion(Family: string, version: string | undefined): ParsedUserAgent {
  const [Major = '', Minor = '', Patch = ''] = (version ?? '').split('.');
  return { Family, Major, Minor, Patch };
}
