import { z } from 'zod';
import { plainTextSchema } from './text.js';

/** `limit`/`offset`/`search` of every list endpoint, after validation. */
export interface ListQuery {
  /** How many records to return; at least 1, default 20. */
  limit: number;
  /** How many records to skip; at least 0, default 0. */
  offset: number;
  /** Case-insensitive substring to match against the resource's name, if given. */
  search?: string;
}

/** The largest `limit` accepted; larger values are clamped rather than refused. */
export const MAX_LIST_LIMIT = 1000;

/** Query-string integer: digits only, so `1.5`, `1e3` and `0x10` are refused rather than coerced. */
export const queryInt = (min: number) =>
  z
    .string()
    .regex(/^-?[0-9]{1,15}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`));

/** zod schema of the list query parameters, shared by every list endpoint. */
export const listQuerySchema = z.object({
  limit: queryInt(1)
    .optional()
    .transform((v) => Math.min(v ?? 20, MAX_LIST_LIMIT)),
  offset: queryInt(0)
    .optional()
    .transform((v) => v ?? 0),
  search: plainTextSchema(200)
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : v)),
});

/**
 * Escapes `%`, `_` and `\` so a user's search text matches literally inside a LIKE pattern that
 * uses `ESCAPE '\'`.
 */
export function likeContains(search: string): string {
  return `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
