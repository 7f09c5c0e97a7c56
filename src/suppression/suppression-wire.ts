import { z } from 'zod';
import { epochNsSchema } from '../model/wire-schemas.js';
import type { SuppressionRecord } from '../store/suppression-store.js';

/** The wire shape of {@link suppressionToWire}. */
export const suppressionWireSchema = z.object({
  id: z.int(),
  reason: z.int().min(0).max(3),
  email: z.string(),
  smtp_error: z.string(),
  created: epochNsSchema,
  expires: epochNsSchema
    .nullable()
    .meta({ description: 'When it stops suppressing (UNIX epoch nanoseconds); null: never.' }),
});

/**
 * The `Suppression` of the reference document: `reason` is the numeric type (0 manual,
 * 1 unsubscribe, 2 hard bounce, 3 spam complaint) and `smtp_error` keeps the reference's spelling
 * so a generated client reads it. `email` is an address or `*@domain`; `expires` is mailplane's addition.
 */
export function suppressionToWire(record: SuppressionRecord): z.output<typeof suppressionWireSchema> {
  return {
    id: record.id,
    reason: record.type,
    email: record.email,
    smtp_error: record.smtpError,
    created: record.created,
    expires: record.expires,
  };
}

/** The answer of a CSV import (src/suppression/csv-import.ts, `ImportReport`). */
export const importReportWireSchema = z.object({
  rows: z.int().meta({ description: 'Data rows read (blank lines are skipped).' }),
  imported: z.int().meta({ description: 'Rows stored or already on the list.' }),
  failed: z.int().meta({ description: 'Rows refused.' }),
  errors: z
    .array(z.object({ line: z.int(), code: z.string(), message: z.string() }))
    .meta({ description: 'The first 1,000 refused rows: line number (the header is line 1), code and plain words.' }),
});
