/** Filling an options object's unset fields. */

/**
 * `defaults` with every field of `partial` that is set: a field given as `undefined` keeps its
 * default (a spread alone would overwrite it with `undefined`).
 *
 * @example
 * withDefaults({ port: 25, tls: true }, { port: undefined, tls: false }); // { port: 25, tls: false }
 */
export function withDefaults<T extends object>(defaults: T, partial: Partial<T> = {}): T {
  const defined = Object.fromEntries(Object.entries(partial).filter(([, value]) => value !== undefined));
  return { ...defaults, ...defined } as T;
}
