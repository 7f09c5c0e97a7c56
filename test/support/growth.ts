/**
 * Timing checks of linear-time code: how much slower a function is on ten times the input.
 */

/** What {@link growth} may answer for linear work: linear work gives about 10, quadratic about 100. */
export const LINEAR_GROWTH_BOUND = 30;

/**
 * The fastest of five timings of `work(10 n)` over the fastest of five of `work(n)`, after one
 * warm-up run: about 10 when the work is linear in `n`, about 100 when it is quadratic. Load on the
 * machine only ever adds time, so the fastest run is the one it disturbed least. A base time under
 * 1 ms counts as 1 ms, so timer noise on tiny inputs cannot inflate the ratio.
 */
export function growth(work: (n: number) => unknown, n: number): number {
  const fastest = (size: number) => {
    let best = Infinity;
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      work(size);
      best = Math.min(best, performance.now() - started);
    }
    return best;
  };
  work(n);
  return fastest(10 * n) / Math.max(fastest(n), 1);
}

/** {@link growth} of asynchronous work. */
export async function growthAsync(work: (n: number) => Promise<unknown>, n: number): Promise<number> {
  const fastest = async (size: number) => {
    let best = Infinity;
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await work(size);
      best = Math.min(best, performance.now() - started);
    }
    return best;
  };
  await work(n);
  return (await fastest(10 * n)) / Math.max(await fastest(n), 1);
}
