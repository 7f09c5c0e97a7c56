import { describe, expect, it } from 'vitest';
import { TimeOrderedIds, uuidV7 } from '../../src/model/ids.js';

describe('version 7 UUIDs', () => {
  it('makes RFC 9562 version 7 UUIDs carrying the millisecond, in order, without repeats', () => {
    const ms = Date.UTC(2026, 10, 22, 12, 0, 0);
    const generator = new TimeOrderedIds();
    const ids = Array.from({ length: 5000 }, (_, i) =>
      i % 2 ? generator.uuidAt(ms + Math.floor(i / 100)) : uuidV7(ms + Math.floor(i / 100)),
    );
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(parseInt(ids[0]!.replace(/-/g, '').slice(0, 12), 16)).toBe(ms);
    const prefixes = ids.map((id) => id.slice(0, 13));
    expect([...prefixes].sort()).toEqual(prefixes);
  });

  it('does not go backwards when the clock does, within one generator', () => {
    const generator = new TimeOrderedIds();
    const later = generator.uuidAt(Date.UTC(2030, 0, 1));
    const earlier = generator.uuidAt(Date.UTC(2029, 0, 1));
    expect(earlier.slice(0, 13) >= later.slice(0, 13)).toBe(true);
    // Another generator (another instance) has its own clock floor.
    expect(new TimeOrderedIds().uuidAt(Date.UTC(2029, 0, 1)).slice(0, 13) < later.slice(0, 13)).toBe(true);
  });
});
