import { recordEngagement } from '../tracking/engagement.js';
import { verifyClickToken, verifyLinkToken } from '../tracking/links.js';
import { TRACKABLE_URL } from '../tracking/rewrite.js';
import { unsubscribeByToken, type UnsubscribeDeps } from '../tracking/unsubscribe.js';
import { ATTACHMENT_LINK_PATH, readAttachmentLink, type AttachmentLinkResult } from '../inbound/attachment-links.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from './errors.js';
import { listHeader } from './headers.js';
import type { HttpHandler, HttpResponse } from './types.js';
import type { Logger } from '../logging/logger.js';

/** What this module uses of the instance: what it calls uses ({@link UnsubscribeDeps}), and the fields below. */
export interface TrackingHandlerDeps extends UnsubscribeDeps {
  readonly logger: Logger;
}

function page(status: number, title: string, text: string): HttpResponse {
  const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    },
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}</style></head><body><h1>${escape(title)}</h1><p>${escape(text)}</p></body></html>`,
  };
}

const notFound = () => page(404, 'Link not valid', 'This link is not valid or has expired.');

/** A transparent 1x1 GIF (43 bytes). */
const PIXEL_GIF_BASE64 = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

const pixel = (): HttpResponse => ({
  status: 200,
  headers: {
    'content-type': 'image/gif',
    'cache-control': 'no-store, no-cache, must-revalidate, private',
    pragma: 'no-cache',
    'x-content-type-options': 'nosniff',
  },
  body: PIXEL_GIF_BASE64,
  bodyEncoding: 'base64',
});

const TOKEN = '([A-Za-z0-9._-]{1,200})';
const UNSUBSCRIBE_PATH = new RegExp(`^/unsubscribe/${TOKEN}/?$`);
const OPEN_PATH = new RegExp(`^/open/${TOKEN}$`);
const CLICK_PATH = new RegExp(`^/click/${TOKEN}$`);

const notAllowed = (allow: string): HttpResponse => {
  const response = page(405, 'Method not allowed', 'Use the link in the email.');
  return { ...response, headers: { ...response.headers, allow } };
};

/**
 * The `Location` of a click's redirect: the target as the WHATWG URL serialiser writes it, as a
 * browser would request it (non-ASCII percent-encoded, an IDN host in punycode). A header value
 * must be Latin-1 without control characters; the raw `https://example.org/€uro` is not, and
 * would make node refuse the whole response. `null` when the target is no URL at all.
 */
function redirectLocation(target: string): string | null {
  try {
    return new URL(target).href;
  } catch {
    return null;
  }
}

/** An inbound attachment link's answer: the bytes as a download, never rendered on this origin (they are a stranger's). */
function attachmentResponse(result: AttachmentLinkResult): HttpResponse {
  if (!result.ok) return page(result.status, 'Attachment not available', result.message);
  const filename = result.filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return {
    status: 200,
    headers: {
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename="${filename}"`,
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
      'referrer-policy': 'no-referrer',
    },
    body: result.content.toString('base64'),
    bodyEncoding: 'base64',
  };
}

/**
 * The public endpoints behind mailplane's links, mounted by the host at the path of
 * `trackingBaseUrl` (e.g. `/t`); they need no API key, the signed token is the authority.
 *
 * - `GET /unsubscribe/<token>`: the `{{unsubscribe}}` link. A click unsubscribes at once, as the
 *   spec says, and answers a confirmation page.
 * - `POST /unsubscribe/<token>`: RFC 8058 one-click unsubscribe (`List-Unsubscribe=One-Click`), as
 *   mailbox providers send it from the `List-Unsubscribe` header.
 * - `GET /open/<token>`: the open-tracking image; records an Opened event and answers a 1x1 GIF.
 * - `GET /click/<token>?url=<target>`: a tracked link; records a Clicked event and redirects (302)
 *   to the target, which the token's signature covers.
 * - `GET /inbound/attachment/<message id>/<index>?sa=…&exp=…&sig=…`: an attachment of a received
 *   message too large to be inline in its webhook payload (src/inbound/attachment-links.ts).
 *
 * `HEAD` on the open and click links answers the same without recording anything (link checkers).
 * A recording that fails still answers the image or the redirect: the reader is never stranded.
 */
export function createTrackingHandler(ctx: TrackingHandlerDeps): HttpHandler {
  const record = async (messageId: string, engagement: Parameters<typeof recordEngagement>[2]) => {
    try {
      return await recordEngagement(ctx, messageId, engagement);
    } catch (error) {
      ctx.logger.error('tracking: recording failed', {
        kind: engagement.kind,
        error: error instanceof Error ? error.message : String(error),
      });
      return true;
    }
  };

  return async (request) => {
    const method = request.method.toUpperCase();
    const userAgent = listHeader(request.headers, 'user-agent') ?? '';
    const open = OPEN_PATH.exec(request.path);
    if (open) {
      if (method !== 'GET' && method !== 'HEAD') return notAllowed('GET, HEAD');
      const messageId = verifyLinkToken(ctx, 'open', open[1]!);
      if (messageId === null) return notFound();
      if (method === 'GET' && !(await record(messageId, { kind: 'open', userAgent }))) return notFound();
      return pixel();
    }
    const click = CLICK_PATH.exec(request.path);
    if (click) {
      if (method !== 'GET' && method !== 'HEAD') return notAllowed('GET, HEAD');
      const target = request.query.get('url') ?? '';
      const messageId = TRACKABLE_URL.test(target) ? verifyClickToken(ctx, click[1]!, target) : null;
      const location = messageId === null ? null : redirectLocation(target);
      if (messageId === null || location === null) return notFound();
      if (method === 'GET' && !(await record(messageId, { kind: 'click', userAgent, url: target }))) return notFound();
      return {
        status: 302,
        headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
        body: '',
      };
    }
    const attachment = ATTACHMENT_LINK_PATH.exec(request.path);
    if (attachment) {
      if (method !== 'GET') return notAllowed('GET');
      return attachmentResponse(await readAttachmentLink(ctx, attachment[1]!, Number(attachment[2]), request.query));
    }
    const unsubscribe = UNSUBSCRIBE_PATH.exec(request.path);
    if (!unsubscribe) return notFound();
    if (method !== 'GET' && method !== 'POST') return notAllowed('GET, POST');
    try {
      const result = await unsubscribeByToken(ctx, unsubscribe[1]!);
      if (!result.ok && result.reason === 'gone') {
        // Permanent: the sender's sub-account was deleted with its list; a retry would change nothing.
        return page(
          410,
          'This list no longer exists',
          'The sender of this email has closed this list: nothing more will be sent to you from it.',
        );
      }
      if (!result.ok) return notFound();
      if (method === 'POST')
        return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'unsubscribed\n' };
      return page(200, 'You are unsubscribed', `${result.email} will no longer receive these emails.`);
    } catch (error) {
      ctx.logger.error('unsubscribe failed', { error: error instanceof Error ? error.message : String(error) });
      // A link in an email is followed again by people, and by mail clients' one-click POSTs, which honour this.
      const unavailable = page(
        503,
        'Please try again',
        'We could not process your request right now. Please try the link again later.',
      );
      return {
        ...unavailable,
        headers: { ...unavailable.headers, 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
      };
    }
  };
}
