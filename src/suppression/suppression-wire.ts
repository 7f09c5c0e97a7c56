import type { SuppressionRecord } from '../store/suppression-store.js';

/**
 * The `Suppression` of the reference document: `reason` is the numeric type (0 manual,
 * 1 unsubscribe, 2 hard bounce, 3 spam complaint) and `smtp_error` keeps the reference's spelling
 * so a generated client reads it.
 */
export function suppressionToWire(record: SuppressionRecord) {
  return {
    id: record.id,
    reason: record.type,
    email: record.email,
    smtp_error: record.smtpError,
    created: record.created,
  };
}
