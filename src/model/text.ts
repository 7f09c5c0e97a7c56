import { z } from 'zod';

/**
 * Control characters (C0, DEL, C1) have no place in names and would break logs and headers; U+0000
 * cannot even be stored or compared as PostgreSQL text (a query holding it fails).
 */
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** A string of at most `max` characters without control characters: search texts, group names. */
export const plainTextSchema = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !CONTROL_CHARACTERS.test(value), 'must not contain control characters');

/**
 * A display name: trimmed, 1 to `max` characters, no control characters.
 *
 * @param max the largest length accepted (the spec says 100 for sub-accounts and pools)
 */
export const nameSchema = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !CONTROL_CHARACTERS.test(value), 'must not contain control characters');

/** Free text with a length limit and no control characters except tab and newline. */
export const freeTextSchema = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(value), 'must not contain control characters');
