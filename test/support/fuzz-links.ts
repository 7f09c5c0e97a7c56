/**
 * The fuzzer's requests to the public link endpoints (`/t/open`, `/t/click`, `/t/unsubscribe`):
 * genuine signed tokens, tokens bent out of shape or moved to another message or action, and
 * garbage, with every method.
 */
import fc from 'fast-check';
import type { MailplaneContext } from '../../src/context.js';
import { clickUrl, signLinkToken } from '../../src/tracking/links.js';
import { FuzzRequest } from './fuzz-requests.js';
import { nastyString, percentEncode, rawSegment } from './fuzz-values.js';

/** Click targets a tenant's HTML can hold, as mailplane signs them. */
const target = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.constantFrom(
    'https://example.org/café',
    'http://example.org/a%20b',
    'https://example.org/?q="<x>"',
    'https://[::1]:8080/',
    'HTTPS://EXAMPLE.ORG',
  ),
  // Any characters, astral and controls included: the redirect's Location is written as the WHATWG
  // URL serialiser writes the target, so no target can make node:http refuse the header.
  fc.string({ maxLength: 30, unit: 'binary' }).map((s) => `https://example.org/${s}`),
);

/** Bends a token: a character changed, cut short, lengthened, or its parts reordered. */
const bend = (token: string, how: number, char: string): string => {
  const at = how % Math.max(1, token.length);
  switch (how % 4) {
    case 0:
      return token.slice(0, at) + char + token.slice(at + 1);
    case 1:
      return token.slice(0, at);
    case 2:
      return token + char.repeat(300);
    default:
      return token.split('.').reverse().join('.');
  }
};

/** Raw requests to the link handler mounted at `/t`, for tokens of `messageIds` (and of `foreignIds`). */
export function linkRequests(
  ctx: MailplaneContext,
  messageIds: string[],
  foreignIds: string[],
): fc.Arbitrary<FuzzRequest> {
  const message = fc.constantFrom(...messageIds, ...foreignIds);
  const signed = fc
    .record({ action: fc.constantFrom('open', 'unsubscribe', 'click' as const), id: message, url: target })
    .map(({ action, id, url }) => {
      if (action !== 'click') return { action, token: signLinkToken(ctx, action, id), url };
      const link = new URL(clickUrl(ctx, id, url));
      return { action, token: link.pathname.split('/').at(-1)!, url };
    });
  const token = fc.oneof(
    { weight: 6, arbitrary: signed },
    {
      weight: 3,
      arbitrary: fc
        .tuple(signed, fc.nat(), fc.constantFrom('A', '.', '-', '_', '0'))
        .map(([s, how, char]) => ({ ...s, token: bend(s.token, how, char) })),
    },
    // A genuine token used as another action, or another URL under a click token.
    {
      weight: 2,
      arbitrary: fc
        .tuple(signed, fc.constantFrom('open', 'unsubscribe', 'click' as const), target)
        .map(([s, action, url]) => ({ ...s, action, url })),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        action: fc.constantFrom('open', 'unsubscribe', 'click', 'nope', ''),
        token: fc.oneof(
          nastyString.map((s) => percentEncode(s.slice(0, 2000))),
          rawSegment,
        ),
        url: target,
      }),
    },
  );
  return fc
    .record({
      link: token,
      method: fc.oneof(
        { weight: 6, arbitrary: fc.constant('GET') },
        { weight: 2, arbitrary: fc.constant('POST') },
        { weight: 2, arbitrary: fc.constantFrom('HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH') },
      ),
      urlParam: fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      slash: fc.boolean(),
      body: fc.oneof(
        { weight: 4, arbitrary: fc.constant('') },
        { weight: 1, arbitrary: fc.constantFrom('List-Unsubscribe=One-Click', '{}', '\u0000\u00ff') },
      ),
    })
    .map(({ link, method, urlParam, slash, body }) => {
      const query = link.action === 'click' && urlParam ? `?url=${percentEncode(link.url)}` : '';
      const headers = { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Mozilla/5.0 fuzz' };
      return new FuzzRequest(method, `/t/${link.action}/${link.token}${slash ? '/' : ''}${query}`, headers, body);
    });
}
