/**
 * Time as mailplane sees it. The wire speaks integer UNIX-epoch nanoseconds, which exceed 2^53,
 * so they are `bigint` everywhere in the core and are never passed through a float.
 */

/** A source of the current time; injectable so retry schedules can be tested in milliseconds. */
export interface Clock {
  /** Milliseconds since the UNIX epoch; may carry a fraction (sub-millisecond precision). */
  now(): number;
}

/** Integer nanoseconds since the UNIX epoch. */
export type EpochNs = bigint;

/** The machine clock, with microsecond precision where the platform offers it. */
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
};

/**
 * A clock that only moves when told to; for tests of schedules and retries.
 *
 * @example
 * const clock = manualClock(Date.UTC(2026, 0, 1));
 * clock.advance(60_000);
 */
export function manualClock(startMs: number): Clock & { advance(ms: number): void; set(ms: number): void } {
  let current = startMs;
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
    },
    set: (ms) => {
      current = ms;
    },
  };
}

/** Converts epoch milliseconds (possibly fractional) to epoch nanoseconds, keeping microseconds. */
export function msToNs(ms: number): EpochNs {
  return BigInt(Math.round(ms * 1000)) * 1000n;
}

/** Epoch nanoseconds as whole epoch milliseconds (rounded down). */
export function nsToMs(ns: EpochNs): number {
  return Number(ns / 1_000_000n);
}

/** The clock's current time in epoch nanoseconds. */
export function nowNs(clock: Clock): EpochNs {
  return msToNs(clock.now());
}
