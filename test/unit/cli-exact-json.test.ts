/**
 * The CLI reads the API's nanosecond times exactly (cli/exact-json.ts): `tail` asks for the events
 * from the newest one's time, so a time rounded to a double would print an event twice or skip one.
 */
import { describe, expect, it } from 'vitest';
import { exactInteger, parseExact, stringifyExact } from '../../cli/exact-json.js';

describe('exact JSON', () => {
  const text =
    '{"eventID":"e1","submittedAt":1795767871054778123,"n":-12.5e2,"s":"at 1795767871054778123, \\"q\\"","a":[1,2]}';

  it('keeps integers beyond 2^53 exact, where JSON.parse rounds them', () => {
    expect(BigInt((JSON.parse(text) as { submittedAt: number }).submittedAt)).not.toBe(1795767871054778123n);
    const parsed = parseExact(text) as { submittedAt: unknown; n: number; s: string; a: number[] };
    expect(exactInteger(parsed.submittedAt)).toBe(1795767871054778123n);
    expect(parsed.n).toBe(-1250);
    // Digits inside a string stay text.
    expect(parsed.s).toBe('at 1795767871054778123, "q"');
    expect(parsed.a).toEqual([1, 2]);
  });

  it('writes them back as the numbers they were', () => {
    expect(stringifyExact(parseExact(text))).toBe(text.replace('-12.5e2', '-1250'));
    expect(exactInteger(42)).toBe(42n);
  });
});
