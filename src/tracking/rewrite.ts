/**
 * Open and click tracking of a rendered HTML body: each `http(s)` link of an `<a href>` becomes a
 * signed click link that records the click and redirects to it, and a 1x1 image is added before
 * `</body>` (or at the end) whose request records an open. Only the HTML body is changed, as
 * Postmark's default does: plain text links stay readable, and AMP bodies may not load images or
 * links from other origins. Links to mailplane's own endpoints (the unsubscribe link) stay as
 * they are, and so do `mailto:`, `tel:`, anchors and template leftovers.
 */
import { htmlLandmarks, spliceHtml, type HtmlEdit } from '../model/html.js';

/** What to add to one message's HTML. */
export interface HtmlTracking {
  /** The open pixel's URL; absent: opens are not tracked. */
  pixelUrl?: string;
  /** The click link for a target URL; absent: clicks are not tracked. */
  clickUrl?: (target: string) => string;
  /** Links starting with this are mailplane's own and are never rewritten. */
  ownBaseUrl: string;
}

/**
 * An http(s) URL without whitespace or control characters: the only targets tracked. One with a
 * line break (`&#10;` in the attribute) could never go out in a `Location` header.
 */
export const TRACKABLE_URL = /^https?:\/\/[^\s\u0000-\u001f\u007f]+$/i;

const NAMED_ENTITIES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>' };

/** An attribute value as the browser reads it: character references decoded. */
export function decodeAttribute(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const escapeAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Links tracked in one message; later ones stay as written. Real newsletters have a few hundred at
 * most, and each costs a signature: a body of nothing but links would otherwise take ~100 ms of
 * signing per recipient.
 */
export const MAX_TRACKED_LINKS = 2000;

/**
 * `html` with its links and open pixel for one recipient: one pass of an HTML tokenizer finds the
 * `<a href>` values and the last `</body>`, and only those places change (src/model/html.ts).
 */
export function trackHtml(html: string, tracking: HtmlTracking): string {
  const { clickUrl, pixelUrl } = tracking;
  if (!clickUrl && !pixelUrl) return html;
  const landmarks = htmlLandmarks(html, { links: clickUrl !== undefined });
  const edits: HtmlEdit[] = [];
  if (clickUrl) {
    for (const link of landmarks.links) {
      if (edits.length === MAX_TRACKED_LINKS) break;
      const target = decodeAttribute(link.value).trim();
      if (!TRACKABLE_URL.test(target) || target.startsWith(tracking.ownBaseUrl)) continue;
      edits.push({ start: link.start, end: link.end, text: `"${escapeAttribute(clickUrl(target))}"` });
    }
  }
  if (pixelUrl) {
    const pixel = `<img src="${escapeAttribute(pixelUrl)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0;margin:0;padding:0" />`;
    const at = landmarks.bodyEnd === -1 ? html.length : landmarks.bodyEnd;
    edits.push({ start: at, end: at, text: pixel });
    // A link after the last </body> (it happens) comes after the pixel.
    edits.sort((a, b) => a.start - b.start);
  }
  return spliceHtml(html, edits);
}
