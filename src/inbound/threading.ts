/**
 * Replies threaded to what mailplane sent (docs/inbound.md, "Replies"): a sent message's
 * `Message-ID` is `<message id@sending domain>` (src/delivery/compose.ts, `messageIdHeader`), so a
 * reply names it in `In-Reply-To`, and a later message of the conversation in `References`.
 */
import type { MessageStore } from '../store/message-store.js';

/** Message ids read from the headers at most: a long `References` chain names its root first, its last replies last. */
export const MAX_REFERENCED_IDS = 10;

/** A UUID (any version), as mailplane's message ids are; lower-cased before the test. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The message ids of mailplane's form (`<uuid@domain>`) named by `In-Reply-To`, then `References`
 * from its newest entry back, without repeats, at most {@link MAX_REFERENCED_IDS}. One pass over
 * each header: every `<…>` is cut out by `indexOf`, never by a pattern that could backtrack.
 */
export function referencedMessageIds(inReplyTo: string, references: string): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const collect = (header: string): string[] => {
    const ids: string[] = [];
    let from = 0;
    for (;;) {
      const open = header.indexOf('<', from);
      if (open < 0) break;
      const close = header.indexOf('>', open + 1);
      if (close < 0) break;
      const inside = header.slice(open + 1, close);
      from = close + 1;
      const at = inside.indexOf('@');
      const local = (at < 0 ? '' : inside.slice(0, at)).toLowerCase();
      if (UUID.test(local)) ids.push(local);
    }
    return ids;
  };
  // The newest reference is the likeliest to be the message answered: read References from its end.
  for (const id of [...collect(inReplyTo), ...collect(references).reverse()]) {
    if (seen.has(id)) continue;
    seen.add(id);
    found.push(id);
    if (found.length >= MAX_REFERENCED_IDS) break;
  }
  return found;
}

/**
 * The id of the first message of `accountId` among those the headers name (as
 * {@link referencedMessageIds} orders them), or `null` when none is one of its messages: another
 * account's message is not linked, whatever the reply says.
 */
export async function threadedMessageId(
  messages: Pick<MessageStore, 'get'>,
  accountId: number,
  headers: { inReplyTo: string; references: string },
): Promise<string | null> {
  for (const id of referencedMessageIds(headers.inReplyTo, headers.references)) {
    if (await messages.get(accountId, id)) return id;
  }
  return null;
}
