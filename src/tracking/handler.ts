import type { MailplaneContext } from '../context.js';
import type { HttpHandler, HttpResponse } from '../http/types.js';
import { unsubscribeByToken } from './unsubscribe.js';

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

/**
 * The public endpoints behind mailplane's links, mounted by the host at the path of
 * `trackingBaseUrl` (e.g. `/t`); they need no API key, the signed token is the authority.
 *
 * - `GET /unsubscribe/<token>`: the `{{unsubscribe}}` link. A click unsubscribes at once, as the
 *   spec says, and answers a confirmation page.
 * - `POST /unsubscribe/<token>`: RFC 8058 one-click unsubscribe (`List-Unsubscribe=One-Click`), as
 *   mailbox providers send it from the `List-Unsubscribe` header.
 */
export function createTrackingHandler(ctx: MailplaneContext): HttpHandler {
  return async (request) => {
    const match = /^\/unsubscribe\/([A-Za-z0-9._-]{1,200})\/?$/.exec(request.path);
    if (!match) return notFound();
    const method = request.method.toUpperCase();
    if (method !== 'GET' && method !== 'POST') {
      return { ...page(405, 'Method not allowed', 'Use the link in the email.'), headers: { allow: 'GET, POST' } };
    }
    try {
      const result = await unsubscribeByToken(ctx, match[1]!);
      if (!result.ok) return notFound();
      if (method === 'POST') return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'unsubscribed\n' };
      return page(200, 'You are unsubscribed', `${result.email} will no longer receive these emails.`);
    } catch (error) {
      ctx.logger.error('unsubscribe failed', { error: error instanceof Error ? error.message : String(error) });
      return page(503, 'Please try again', 'We could not process your request right now. Please try the link again later.');
    }
  };
}
