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
});

/**
 * The `Suppression` of the reference document: `reason` is the numeric type (0 manual,
 * 1 unsubscribe, 2 hard bounce, 3 spam complaint) and `smtp_error` keeps the reference's spelling
 * so a generated client reads it.
 */
export function suppressionToWire(record: SuppressionRecord): z.output<typeof suppressionWireSchema> {
  return {
    id: record.id,
    reason: record.type,
    email: record.email,
    smtp_error: record.smtpError,
    created: record.created,
  };
}
