/** Which sent message a received reply names (src/inbound/threading.ts). */
import { describe, expect, it } from 'vitest';
import { MAX_REFERENCED_IDS, referencedMessageIds, threadedMessageId } from '../../src/inbound/threading.js';

const A = '0190f3a2-6c1e-7b2d-8f00-0000000000aa';
const B = '0190f3a2-6c1e-7b2d-8f00-0000000000bb';
const C = '0190f3a2-6c1e-7b2d-8f00-0000000000cc';

describe('referencedMessageIds', () => {
  it('reads In-Reply-To first, then References from the newest back, without repeats or foreign ids', () => {
    expect(
      referencedMessageIds(
        `<${B}@acme.test>`,
        `<${A}@acme.test> <CAF+x@mail.gmail.com>\r\n <${C.toUpperCase()}@acme.test> <${B}@acme.test>`,
      ),
    ).toEqual([B, C, A]);
  });

  it('ignores what is not <uuid@domain>: no brackets, no @, an unclosed bracket', () => {
    expect(referencedMessageIds(`${A}@acme.test`, `<${A}> <${B}@acme.test`)).toEqual([]);
  });

  it(`keeps at most ${MAX_REFERENCED_IDS}, and reads a huge header in linear time`, () => {
    const ids = Array.from({ length: 200 }, (_, i) => `<${A.slice(0, -3)}${String(i).padStart(3, '0')}@x.test>`);
    expect(referencedMessageIds('', ids.join(' '))).toHaveLength(MAX_REFERENCED_IDS);
    const started = performance.now();
    referencedMessageIds('<'.repeat(500_000), '<a@'.repeat(200_000));
    // Quadratic scanning of these would take minutes; linear takes milliseconds.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('threadedMessageId', () => {
  it("answers the first referenced message of the account, never another account's", async () => {
    const owned = new Map([
      [A, 1],
      [C, 2],
    ]);
    const messages = {
      get: async (accountId: number, id: string) => (owned.get(id) === accountId ? ({} as never) : null),
    };
    const headers = { inReplyTo: `<${C}@other.test>`, references: `<${A}@acme.test> <${B}@acme.test>` };
    expect(await threadedMessageId(messages, 1, headers)).toBe(A);
    expect(await threadedMessageId(messages, 2, headers)).toBe(C);
    expect(await threadedMessageId(messages, 3, headers)).toBeNull();
  });
});
