/**
 * Zod schemas of the small shapes many wire answers share. Each resource's own answer schema sits
 * next to the function that builds it (`src/<area>/*-wire.ts`); the router's OpenAPI document
 * turns them into JSON Schema (src/http/openapi-schemas.ts).
 */
import { z } from 'zod';

/**
 * A UNIX-epoch nanosecond time: a `bigint` in the core, written as an exact JSON integer (it exceeds
 * 2^53). JSON Schema has no bigint, so the document writes it as `integer` with format `int64`.
 */
export const epochNsSchema = z.bigint().meta({ description: 'UNIX epoch nanoseconds.' });

/** The answer of a delete: the id of the deleted resource and a sentence naming it. */
export const deletedSchema = z.object({ id: z.int(), message: z.string() });

/** The answer of a delete of many things at once (suppressions): a sentence saying how many. */
export const messageOnlySchema = z.object({ message: z.string() });

/** An address with its display name (`''` without one). */
export const mailboxSchema = z.object({ email: z.string(), name: z.string() });
