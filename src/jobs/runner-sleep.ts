/**
 * The runner's wait between claim rounds: a sleep that a wake-up ends at once. A wake-up that comes
 * while no one sleeps (during a claim round) is remembered, so the next sleep does not begin: an
 * enqueue is never left to wait for the next poll because it arrived at the wrong moment.
 */
export class WakeableSleep {
  #pending = false;
  #endSleep: (() => void) | undefined;

  /** Ends the current sleep, or the next one before it begins. */
  wake(): void {
    this.#pending = true;
    this.#endSleep?.();
  }

  /** Forgets a remembered wake-up: called as a claim round begins, which sees what it was for. */
  consume(): void {
    this.#pending = false;
  }

  /** Resolves after `ms`, or at the first wake-up (at once when one is pending or `skip` holds). */
  sleep(ms: number, skip = false): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.#pending || skip) return resolve();
      const end = () => {
        clearTimeout(timer);
        this.#endSleep = undefined;
        resolve();
      };
      const timer = setTimeout(end, ms);
      this.#endSleep = end;
    });
  }
}
