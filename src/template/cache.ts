/**
 * The cache of compiled templates of one mailplane instance (`TemplateCompiler`, renderer.ts): the
 * bound it is given in the instance's configuration, and the least-recently-used entries it keeps.
 */
import { withDefaults } from '../model/defaults.js';

/** How many compiled templates an instance keeps (`MailplaneOptions.templateCache`; docs/security.md). */
export interface TemplateCacheConfig {
  /** Compiled templates kept at most (default 1,000); 0 keeps none. */
  maxTemplates: number;
  /**
   * Characters of template source the kept templates stand for at most (default 64 M): a compiled
   * template takes memory in proportion to its source. 0 keeps none.
   */
  maxCharacters: number;
}

/** The defaults of {@link TemplateCacheConfig}. */
export const defaultTemplateCacheConfig: Readonly<TemplateCacheConfig> = Object.freeze({
  maxTemplates: 1000,
  maxCharacters: 64 * 1024 * 1024,
});

/**
 * Fills the unset fields with the defaults. The values are checked before, with the other options
 * of `createMailplane` (src/options.ts).
 */
export function resolveTemplateCacheConfig(options: Partial<TemplateCacheConfig> = {}): TemplateCacheConfig {
  return withDefaults(defaultTemplateCacheConfig, options);
}

/** How full the cache of compiled templates is (`TemplateCompiler.cached`). */
export interface TemplateCacheSize {
  /** Templates kept. */
  templates: number;
  /** Characters of source they stand for. */
  characters: number;
}

/**
 * Values by key, least recently used evicted first once the entries or the characters they stand
 * for pass the bound. Owned by one instance; `clear()` drops everything.
 */
export class CompiledTemplateCache<V> {
  private readonly entries = new Map<string, { value: V; characters: number }>();
  private characters = 0;

  constructor(private readonly bound: TemplateCacheConfig) {}

  /** The value of `key`, now the most recently used; `undefined` when it is not kept. */
  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit.value;
  }

  /** Keeps `value` under `key`, standing for `characters` of source, and evicts beyond the bound. */
  set(key: string, value: V, characters: number): void {
    this.forget(key);
    this.entries.set(key, { value, characters });
    this.characters += characters;
    while (this.entries.size > this.bound.maxTemplates || this.characters > this.bound.maxCharacters) {
      const [oldest] = this.entries.keys();
      this.forget(oldest!);
    }
  }

  /** Drops `key`, only when it still holds `value` if one is given (a newer entry stays). */
  forget(key: string, value?: V): void {
    const entry = this.entries.get(key);
    if (!entry || (value !== undefined && entry.value !== value)) return;
    this.entries.delete(key);
    this.characters -= entry.characters;
  }

  /** How many templates are kept, and the characters they stand for. */
  get size(): TemplateCacheSize {
    return { templates: this.entries.size, characters: this.characters };
  }

  /** Drops every entry. */
  clear(): void {
    this.entries.clear();
    this.characters = 0;
  }
}
