import type { SubAccountRecord } from '../store/index.js';
import { stringifyJson } from '../model/json.js';
import type { SendResponseEntry } from '../sending/accept.js';
import {
  idempotencyClaim,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  sendIdempotently,
  type IdempotencyClaim,
} from '../idempotency/keys.js';
import { RawJson } from './json.js';
import type { RouteHeader, RouteInput, RouteResult } from './route.js';

/** The request header that names a send (docs/sending.md, "Idempotent sends"). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** The response header of a replayed answer. */
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';

/** What a route using {@link idempotentSend} declares, so the OpenAPI document describes both headers. */
export const IDEMPOTENT_SEND_HEADERS: {
  headers: readonly RouteHeader[];
  responseHeaders: Readonly<Record<string, string>>;
} = {
  headers: [
    {
      name: 'Idempotency-Key',
      description:
        'Names this send (1-255 printable ASCII characters): a repeat with the same key and body within 24 hours answers the first response and sends nothing; the same key with another body is a 422 IDEMPOTENCY_KEY_REUSED.',
      maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
    },
  ],
  responseHeaders: {
    'Idempotent-Replayed':
      '`true` when this answer is the stored answer to an earlier request with the same Idempotency-Key (nothing was sent again).',
  },
};

/**
 * The HTTP side of idempotent sends (the rule itself is src/idempotency/keys.ts): the handler
 * body of a send route, made idempotent: without an `Idempotency-Key` header it is `send()`; with one, the first request with the key sends (committing the key with the send)
 * and every repeat with the same body gets the same JSON, byte for byte, with
 * `Idempotent-Replayed: true`, and sends nothing. A repeat with another body is a 422
 * `IDEMPOTENCY_KEY_REUSED`; a key over 255 characters a 422 `IDEMPOTENCY_KEY_TOO_LONG`.
 * Any send route uses it: `send` passes the claim on to `acceptSend(..., { idempotency })`.
 *
 * @example
 * handle: (input) => idempotentSend(input, (idempotency) => acceptSend(input.ctx, input.principal.subAccount, input.body, { idempotency })),
 */
export async function idempotentSend<Q, B>(
  input: RouteInput<'subaccount', Q, B>,
  send: (idempotency?: IdempotencyClaim) => Promise<SendResponseEntry[]>,
): Promise<RouteResult<SendResponseEntry[] | RawJson>> {
  // The route's method and path are part of the hash: one key cannot name a plain and a template send.
  const claim = idempotencyClaim(
    input.request.headers[IDEMPOTENCY_KEY_HEADER],
    'Idempotency-Key',
    `${input.request.method.toUpperCase()} ${routePathOf(input)}`,
    input.body,
  );
  if (claim === undefined) return { body: await send() };
  const subAccount: SubAccountRecord = input.principal.subAccount;
  const answer = await sendIdempotently(input.ctx, subAccount.id, claim, async () => stringifyJson(await send(claim)));
  return {
    body: new RawJson(answer.response),
    headers: answer.replayed ? { [IDEMPOTENT_REPLAYED_HEADER]: 'true' } : {},
  };
}

/** The request path without a trailing slash (a send route has no path parameters). */
function routePathOf(input: RouteInput<'subaccount', unknown, unknown>): string {
  return input.request.path.replace(/\/+$/, '');
}
