/**
 * The browser or mail client family of a User-Agent, in the reference's `UserAgent` shape
 * (`Family`, `Major`, `Minor`, `Patch`), for Opened and Clicked events. A short list of the agents
 * that fetch email images and follow email links, most specific first; anything else is named by
 * its first product token. Best effort: the raw string travels alongside as `rawUserAgent`.
 */

/** The reference's `UserAgent`. */
export interface ParsedUserAgent {
  Family: string;
  Major: string;
  Minor: string;
  Patch: string;
}

const FAMILIES: ReadonlyArray<readonly [family: string, pattern: RegExp]> = [
  // Mailbox providers' image proxies fetch the open pixel on the reader's behalf.
  ['GoogleImageProxy', /GoogleImageProxy/],
  ['YahooMailProxy', /YahooMailProxy/],
  ['Outlook', /Microsoft Outlook (\d+)\.(\d+)(?:\.(\d+))?/],
  ['Thunderbird', /Thunderbird\/(\d+)\.(\d+)(?:\.(\d+))?/],
  ['Edge', /Edg(?:e|A|iOS)?\/(\d+)\.(\d+)(?:\.(\d+))?/],
  ['Opera', /OPR\/(\d+)\.(\d+)(?:\.(\d+))?/],
  ['Firefox', /(?:Firefox|FxiOS)\/(\d+)\.(\d+)(?:\.(\d+))?/],
  ['Chrome', /(?:Chrome|CriOS)\/(\d+)\.(\d+)(?:\.(\d+))?/],
  ['Safari', /Version\/(\d+)\.(\d+)(?:\.(\d+))?.*Safari\//],
  // Apple Mail loads images with WebKit's token and no Safari one.
  ['Apple Mail', /AppleWebKit\/(\d+)\.(\d+)(?:\.(\d+))?(?!.*Safari)/],
];

/**
 * Characters of a User-Agent read: real ones are a few hundred. The Safari and Apple Mail patterns
 * read to the end of the value from each `Version/` or `AppleWebKit/`, so on a crafted header
 * their time grows with the square of its length (120 KB: 0.5 s).
 */
const USER_AGENT_READ = 512;

/** Parses `raw` (a User-Agent header value) into its family and version. */
export function parseUserAgent(header: string): ParsedUserAgent {
  const raw = header.slice(0, USER_AGENT_READ);
  for (const [family, pattern] of FAMILIES) {
    const match = pattern.exec(raw);
    if (match) return { Family: family, Major: match[1] ?? '', Minor: match[2] ?? '', Patch: match[3] ?? '' };
  }
  const product = /^([A-Za-z][\w.-]*)(?:\/(\d+)(?:\.(\d+))?(?:\.(\d+))?)?/.exec(raw.trim());
  if (product) return { Family: product[1]!, Major: product[2] ?? '', Minor: product[3] ?? '', Patch: product[4] ?? '' };
  return { Family: 'Other', Major: '', Minor: '', Patch: '' };
}
