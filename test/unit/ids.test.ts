import { describe, expect, it } from 'vitest';
import { uuidV7 } from '../../src/model/ids.js';

describe('uuidV7', () => {
  it('makes RFC 9562 version 7 UUIDs carrying the millisecond, in order, without repeats', () => {
    const ms = Date.UTC(2026, 10, 22, 12, 0, 0);
    const ids = Array.from({ length: 5000 }, (_, i) => uuidV7(ms + Math.floor(i / 100)));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(parseInt(ids[0]!.replace(/-/g, '').slice(0, 12), 16)).toBe(ms);
    const prefixes = ids.map((id) => id.slice(0, 13));
    expect([...prefixes].sort()).toEqual(prefixes);
  });

  it('does not go backwards when the clock does', () => {
    const later = uuidV7(Date.UTC(2030, 0, 1));
    const earlier = uuidV7(Date.UTC(2029, 0, 1));
    expect(earlier.slice(0, 13) >= later.slice(0, 13)).toBe(true);
  });
});
