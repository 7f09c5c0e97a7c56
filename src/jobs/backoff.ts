/** Exponential backoff with jitter, the default retry schedule of failed jobs. */
export interface BackoffOptions {
  /** Delay after the first failed attempt (default 1,000 ms). */
  baseMs?: number;
  /** Growth per attempt (default 2). */
  factor?: number;
  /** Upper bound of any delay (default 1 hour). */
  maxMs?: number;
  /**
   * Fraction of the delay taken off at random (default 0.2: 80-100 % of the nominal delay), so
   * jobs that failed together (a receiver that was down) do not all come back in the same instant.
   */
  jitter?: number;
}

/** Delay in milliseconds before the next try, given the number of attempts made so far (>= 1). */
export type BackoffFunction = (attempts: number) => number;

/** The delay function described by `options`; `random` is the jitter source (default `Math.random`). */
export function exponentialBackoff(options: BackoffOptions = {}, random: () => number = Math.random): BackoffFunction {
  const baseMs = options.baseMs ?? 1_000;
  const factor = options.factor ?? 2;
  const maxMs = options.maxMs ?? 3_600_000;
  const jitter = Math.min(Math.max(options.jitter ?? 0.2, 0), 1);
  return (attempts) => {
    const nominal = Math.min(maxMs, baseMs * factor ** Math.max(0, attempts - 1));
    return Math.round(nominal * (1 - jitter * random()));
  };
}

/** A backoff given as options or as a function, as a function. */
export function toBackoffFunction(
  backoff: BackoffOptions | BackoffFunction | undefined,
  random?: () => number,
): BackoffFunction {
  return typeof backoff === 'function' ? backoff : exponentialBackoff(backoff, random);
}
