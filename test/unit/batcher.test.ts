import { describe, expect, it } from 'vitest';
import { createBatcher } from '../../src/store/batcher.js';

describe('createBatcher', () => {
  it('hands every item to exactly one run, in order, never two runs at once, at most maxBatch a run', async () => {
    const runs: number[][] = [];
    let inFlight = 0;
    let overlapped = false;
    const done = new Set<number>();
    const batcher = createBatcher<number>(
      async (batch) => {
        overlapped ||= inFlight > 0;
        inFlight++;
        await new Promise((resolve) => setTimeout(resolve, 5));
        runs.push(batch);
        for (const item of batch) done.add(item);
        inFlight--;
      },
      { maxBatch: 4 },
    );
    // Nine in one turn (the fourth and eighth reach maxBatch), then three more while runs are in flight.
    for (let i = 0; i < 9; i++) batcher.add(i);
    await new Promise((resolve) => setTimeout(resolve, 2));
    for (let i = 9; i < 12; i++) batcher.add(i);
    await expect.poll(() => done.size, { timeout: 2_000 }).toBe(12);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(overlapped).toBe(false);
    expect(runs.flat()).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(Math.max(...runs.map((r) => r.length))).toBeLessThanOrEqual(4);
  });

  it('waits for the end of the turn: items added by separate callbacks of one turn share a run', async () => {
    const runs: number[][] = [];
    const batcher = createBatcher<number>(async (batch) => void runs.push(batch), { maxBatch: 64 });
    await Promise.all(
      Array.from(
        { length: 5 },
        (_, i) => new Promise<void>((resolve) => setImmediate(() => (batcher.add(i), resolve()))),
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toEqual([[0, 1, 2, 3, 4]]);
  });
});
