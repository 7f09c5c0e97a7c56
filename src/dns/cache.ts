import type { Clock } from '../model/time.js';

/**
 * A size-bounded TTL cache. Entries expire by the clock; when full, the least recently used
 * entry goes first (a Map keeps insertion order, and a hit re-inserts its entry at the end).
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly clock: Clock,
  ) {}

  /** The live value under `key`, or `undefined`. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.clock.now()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value` for `ttlMs`; a TTL of zero or less stores nothing. */
  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0 || this.maxEntries <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.clock.now() + ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  /** Forgets everything. */
  clear(): void {
    this.entries.clear();
  }

  /** Number of entries held (expired ones included until they are next read or evicted). */
  get size(): number {
    return this.entries.size;
  }
}
