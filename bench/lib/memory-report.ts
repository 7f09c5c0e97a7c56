/** Arithmetic of the memory benchmark's summary (bench/memory.ts): slopes and the flatness verdict. */

/** One reading of the mailplane process's memory. */
export interface MemorySample {
  phase: string;
  accepted: number;
  delivered: number;
  /** `process.memoryUsage().heapUsed` after a full GC, MiB. */
  heapUsedMb: number;
  rssMb: number;
  elapsedS: number;
  /** Delivery jobs pending or running. */
  jobs: number;
}

/**
 * Growth above which the drain is not flat: 1 MiB of heap per 100,000 recipients, i.e. about 10
 * bytes retained per recipient. Anything kept per message (a Map entry, a promise, a closure,
 * a string id) costs more than 50 bytes, so a real per-recipient leak lands far above it, while
 * bounded caches filling up (templates, prepared statements, DKIM keys, SMTP pools) are a step
 * at the start that the 10 % warm-up leaves out of the fit.
 */
export const FLAT_MB_PER_100K = 1;

/** A least-squares line: slope and its standard error, both in MiB per 100,000 units of x. */
export interface Fit {
  slope: number;
  standardError: number;
  points: number;
}

/** Least-squares fit of `y` over `x`, scaled to MiB per 100,000 units of `x`; zeros with fewer than 3 points. */
export function fitPer100k<T>(points: readonly T[], x: (p: T) => number, y: (p: T) => number): Fit {
  const n = points.length;
  if (n < 3) return { slope: 0, standardError: 0, points: n };
  const mx = points.reduce((sum, p) => sum + x(p), 0) / n;
  const my = points.reduce((sum, p) => sum + y(p), 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const p of points) {
    covariance += (x(p) - mx) * (y(p) - my);
    variance += (x(p) - mx) ** 2;
  }
  if (variance === 0) return { slope: 0, standardError: 0, points: n };
  const slope = covariance / variance;
  const residuals = points.reduce((sum, p) => sum + (y(p) - my - slope * (x(p) - mx)) ** 2, 0);
  const standardError = Math.sqrt(residuals / (n - 2) / variance);
  return { slope: slope * 100_000, standardError: standardError * 100_000, points: n };
}

/**
 * The verdict on a drain fit. Heap after GC still moves by a few MiB between readings (the
 * messages in flight at that instant, V8's code and feedback), so the slope is judged with its
 * uncertainty (two standard errors, about 95 %): flat when even the upper bound is under
 * {@link FLAT_MB_PER_100K}, growing when even the lower bound is over it. A short run (20,000
 * recipients) cannot bound the slope that tightly and says so rather than guessing.
 */
export function flatnessVerdict(fit: Fit): string {
  const low = fit.slope - 2 * fit.standardError;
  const high = fit.slope + 2 * fit.standardError;
  const range = `${fit.slope.toFixed(2)} ± ${(2 * fit.standardError).toFixed(2)} MB per 100,000 recipients over ${fit.points} samples`;
  const rule = `threshold ${FLAT_MB_PER_100K} MB per 100,000 recipients, i.e. ~10 bytes retained per recipient`;
  if (fit.points < 3) return `NOT JUDGED: fewer than 3 drain samples (${rule})`;
  if (high <= FLAT_MB_PER_100K) return `FLAT: ${range} (${rule})`;
  if (low > FLAT_MB_PER_100K) return `GROWING: ${range} (${rule})`;
  return `NO GROWTH DETECTED, NOT BOUNDED: ${range}; the run is too short to bound the slope under the threshold, run more recipients (${rule})`;
}
