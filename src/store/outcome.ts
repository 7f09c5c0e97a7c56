/**
 * The result of a store call whose failure is an expected outcome (a duplicate name, a missing
 * row) rather than a fault. Faults throw {@link StorageError}; outcomes are values the caller must
 * look at, so none is silently ignored.
 */
export type Outcome<T, Reason extends string> = { ok: true; value: T } | { ok: false; reason: Reason };

/** Builds a successful {@link Outcome}. */
export const success = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });

/** Builds a failed {@link Outcome}. */
export const failure = <Reason extends string>(reason: Reason): { ok: false; reason: Reason } => ({
  ok: false,
  reason,
});
