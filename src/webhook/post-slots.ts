/**
 * The bulkheads of webhook POSTs: at most `maxConcurrentPerWebhook` POSTs to one webhook and
 * `maxConcurrentPerAccount` of one account under way at once in this instance, whichever jobs they
 * belong to. A job asks with {@link WebhookPostSlots.tryAcquire} first and, when either is full,
 * puts its posts off instead of waiting; only a job already holding a slot of the webhook waits for
 * more ({@link WebhookPostSlots.acquire}), behind that webhook's own POSTs, each bounded by the POST
 * deadlines. So a receiver that hangs holds a couple of job slots, an account whose receivers all
 * hang a few more, and no job waits behind another webhook. A job holding none may wait for one
 * ({@link WebhookPostSlots.acquireWithin}) until a deadline, a few per account at once.
 */

/** Gives a slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

interface KeySlots {
  running: number;
  /** Callers waiting for a slot, first come first served. */
  waiting: Array<(release: ReleaseSlot) => void>;
}

/** Slots per key (a webhook's id, an account's id): at most `limit` under way for each. */
class KeyedSlots {
  private readonly keys = new Map<number, KeySlots>();
  private readonly limit: number;

  /** `limit`: POSTs one key may have under way (at least 1). */
  constructor(limit: number) {
    this.limit = Math.max(1, Math.floor(limit));
  }

  /** A slot for one POST of the key, or `null` when it has `limit` under way or callers waiting. */
  tryAcquire(key: number): ReleaseSlot | null {
    const slots = this.slotsOf(key);
    if (slots.running >= this.limit || slots.waiting.length > 0) return null;
    slots.running++;
    return this.releaser(key, slots);
  }

  /** A slot for one POST of the key, once one of its POSTs under way ends if it has `limit`. */
  acquire(key: number): Promise<ReleaseSlot> {
    const now = this.tryAcquire(key);
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => this.slotsOf(key).waiting.push(resolve));
  }

  /** A slot for one POST of the key as {@link KeyedSlots.acquire}, or `null` if `signal` aborts first. */
  acquireUnless(key: number, signal: AbortSignal): Promise<ReleaseSlot | null> {
    const now = this.tryAcquire(key);
    if (now) return Promise.resolve(now);
    if (signal.aborted) return Promise.resolve(null);
    const slots = this.slotsOf(key);
    return new Promise((resolve) => {
      const take = (release: ReleaseSlot) => {
        signal.removeEventListener('abort', giveUp);
        resolve(release);
      };
      // Out of the queue, so the slot it would have got goes to the next caller.
      const giveUp = () => {
        const index = slots.waiting.indexOf(take);
        if (index >= 0) slots.waiting.splice(index, 1);
        resolve(null);
      };
      slots.waiting.push(take);
      signal.addEventListener('abort', giveUp, { once: true });
    });
  }

  private slotsOf(key: number): KeySlots {
    let slots = this.keys.get(key);
    if (!slots) this.keys.set(key, (slots = { running: 0, waiting: [] }));
    return slots;
  }

  private releaser(key: number, slots: KeySlots): ReleaseSlot {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = slots.waiting.shift();
      // The slot passes straight to the next caller waiting, so none can jump the queue.
      if (next) return next(this.releaser(key, slots));
      slots.running--;
      // Keys come and go: one with nothing under way takes no memory.
      if (slots.running === 0) this.keys.delete(key);
    };
  }
}

/** The POST slots of webhooks and of their accounts (see the module comment). */
export class WebhookPostSlots {
  private readonly webhooks: KeyedSlots;
  private readonly accounts: KeyedSlots;

  /** Callers in {@link WebhookPostSlots.acquireWithin} per account. */
  private readonly waitingOfAccount = new Map<number, number>();

  constructor(limits: { maxConcurrentPerWebhook: number; maxConcurrentPerAccount: number }) {
    this.webhooks = new KeyedSlots(limits.maxConcurrentPerWebhook);
    this.accounts = new KeyedSlots(limits.maxConcurrentPerAccount);
  }

  /** A slot for one POST to `webhook`, or `null` when the webhook or its account is at its cap. */
  tryAcquire(webhook: { id: number; accountId: number }): ReleaseSlot | null {
    const ofWebhook = this.webhooks.tryAcquire(webhook.id);
    if (!ofWebhook) return null;
    const ofAccount = this.accounts.tryAcquire(webhook.accountId);
    if (!ofAccount) {
      ofWebhook();
      return null;
    }
    return both(ofWebhook, ofAccount);
  }

  /**
   * A slot for one POST to `webhook`, waiting for one when it is at its cap. Taken in one order,
   * webhook then account, and only ever waited for by a job that holds one of the webhook's slots
   * already, so waiting callers cannot hold each other up in a cycle.
   */
  async acquire(webhook: { id: number; accountId: number }): Promise<ReleaseSlot> {
    const ofWebhook = await this.webhooks.acquire(webhook.id);
    return both(ofWebhook, await this.accounts.acquire(webhook.accountId));
  }

  /** How many callers of the account are in {@link WebhookPostSlots.acquireWithin}. */
  waitingOf(accountId: number): number {
    return this.waitingOfAccount.get(accountId) ?? 0;
  }

  /**
   * A slot for one POST to `webhook`, waiting for one until `signal` aborts (a deadline) unless
   * `maxWaiting` callers of the webhook's account wait already; `null` when it gets none. For a
   * job that holds no slot: the waiters of an account whose receivers hang hold `maxWaiting` job
   * slots at most, each until its deadline, and no caller holding a slot waits on them.
   */
  async acquireWithin(
    webhook: { id: number; accountId: number },
    options: { maxWaiting: number; signal: AbortSignal },
  ): Promise<ReleaseSlot | null> {
    const now = this.tryAcquire(webhook);
    if (now) return now;
    const { accountId } = webhook;
    const waiting = this.waitingOfAccount.get(accountId) ?? 0;
    if (waiting >= options.maxWaiting) return null;
    this.waitingOfAccount.set(accountId, waiting + 1);
    try {
      const ofWebhook = await this.webhooks.acquireUnless(webhook.id, options.signal);
      if (!ofWebhook) return null;
      const ofAccount = await this.accounts.acquireUnless(accountId, options.signal);
      if (!ofAccount) {
        ofWebhook();
        return null;
      }
      return both(ofWebhook, ofAccount);
    } finally {
      const left = (this.waitingOfAccount.get(accountId) ?? 1) - 1;
      if (left > 0) this.waitingOfAccount.set(accountId, left);
      else this.waitingOfAccount.delete(accountId);
    }
  }
}

const both =
  (first: ReleaseSlot, second: ReleaseSlot): ReleaseSlot =>
  () => {
    second();
    first();
  };
