/**
 * Waiting for a POST slot with a deadline (`WebhookPostSlots.acquireWithin`, src/webhook/post-slots.ts):
 * first come first served, at most `maxWaiting` callers of an account, and a caller whose deadline
 * passes leaves the queue without taking the slot from the next one.
 */
import { describe, expect, it } from 'vitest';
import { WebhookPostSlots } from '../../src/webhook/post-slots.js';

const route = { id: 3, accountId: 1 };
const never = () => new AbortController().signal;

describe('WebhookPostSlots.acquireWithin', () => {
  it('hands a released slot to the callers waiting, in turn, and refuses one beyond maxWaiting', async () => {
    const slots = new WebhookPostSlots({ maxConcurrentPerWebhook: 1, maxConcurrentPerAccount: 8 });
    const held = slots.tryAcquire(route)!;
    const served: string[] = [];
    const first = slots.acquireWithin(route, { maxWaiting: 2, signal: never() }).then((s) => (served.push('a'), s));
    const second = slots.acquireWithin(route, { maxWaiting: 2, signal: never() }).then((s) => (served.push('b'), s));
    expect(slots.waitingOf(route.accountId)).toBe(2);
    expect(await slots.acquireWithin(route, { maxWaiting: 2, signal: never() })).toBeNull();
    held();
    (await first)!();
    (await second)!();
    expect(served).toEqual(['a', 'b']);
    expect(slots.waitingOf(route.accountId)).toBe(0);
    expect(slots.tryAcquire(route)).not.toBeNull();
  });

  it('answers null once its signal aborts, and the slot then goes to the caller behind it', async () => {
    const slots = new WebhookPostSlots({ maxConcurrentPerWebhook: 1, maxConcurrentPerAccount: 8 });
    const held = slots.tryAcquire(route)!;
    const impatient = slots.acquireWithin(route, { maxWaiting: 2, signal: AbortSignal.timeout(20) });
    const patient = slots.acquireWithin(route, { maxWaiting: 2, signal: never() });
    expect(await impatient).toBeNull();
    held();
    const slot = await patient;
    expect(slot).not.toBeNull();
    // One slot for the route: nobody else gets one until it is given back.
    expect(slots.tryAcquire(route)).toBeNull();
    slot!();
    expect(slots.tryAcquire(route)).not.toBeNull();
  });
});
