/**
 * Timing checks of linear-time code: how much slower a function is on ten times the input.
 */

/** What {@link growth} may answer for linear work: linear work gives about 10, quadratic about 100. */
export const LINEAR_GROWTH_BOUND = 30;

/**
 * Milliseconds of CPU this process has used (user and system, every thread). Unlike wall time it
 * leaves out the time the operating system gives other processes: with four test files on two
 * cores a long run is preempted more often than a short one, and wall-time ratios of linear work
 * crossed the bound (33 to 37 where CPU time gives 13 to 19).
 */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * The least CPU time of five runs of `work(10 n)` over the least of five of `work(n)`, after one
 * warm-up run: about 10 when the work is linear in `n`, about 100 when it is quadratic. A base time
 * under 1 ms counts as 1 ms, so timer noise on tiny inputs cannot inflate the ratio. A ratio over
 * {@link LINEAR_GROWTH_BOUND} is measured once more and the lower one answered: a garbage
 * collection that fell into the large runs does not come back each time, quadratic work does.
 */
export function growth(work: (n: number) => unknown, n: number): number {
  const fastest = (size: number) => {
    let best = Infinity;
    for (let i = 0; i < 5; i++) {
      const started = cpuMs();
      work(size);
      best = Math.min(best, cpuMs() - started);
    }
    return best;
  };
  work(n);
  const ratio = () => fastest(10 * n) / Math.max(fastest(n), 1);
  const first = ratio();
  return first > LINEAR_GROWTH_BOUND ? Math.min(first, ratio()) : first;
}

/** {@link growth} of asynchronous work. */
export async function growthAsync(work: (n: number) => Promise<unknown>, n: number): Promise<number> {
  const fastest = async (size: number) => {
    let best = Infinity;
    for (let i = 0; i < 5; i++) {
      const started = cpuMs();
      await work(size);
      best = Math.min(best, cpuMs() - started);
    }
    return best;
  };
  await work(n);
  const ratio = async () => (await fastest(10 * n)) / Math.max(await fastest(n), 1);
  const first = await ratio();
  return first > LINEAR_GROWTH_BOUND ? Math.min(first, await ratio()) : first;
}
