import { randomUUID } from 'node:crypto';

/** Generates the opaque identifiers mailplane hands out (message ids, event ids). Injectable for tests. */
export interface IdGenerator {
  /** A new RFC 4122 version 4 UUID. */
  uuid(): string;
}

/** The default generator, backed by the platform CSPRNG. */
export const randomIds: IdGenerator = { uuid: () => randomUUID() };

/**
 * Parses a numeric resource id from a path segment. Anything that is not a positive safe integer
 * written in plain decimal is "no such id" (`null`), so "abc", "1.5", "-3" and "1e3" all resolve
 * to the same 406 as an id that does not exist.
 */
export function parseResourceId(raw: string | undefined): number | null {
  if (raw === undefined || !/^[1-9][0-9]{0,15}$/.test(raw)) return null;
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : null;
}
