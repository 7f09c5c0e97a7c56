import { describe, expect, it } from 'vitest';
import { hasSharedBody, SharedBodyCache, type SharedBody } from '../../src/delivery/body-cache.js';
import type { SendBatchRecord } from '../../src/store/index.js';

const body = (bytes: number): SharedBody => ({
  baseBoundary: 'b',
  body: Buffer.alloc(bytes),
  bodyHash: 'h',
  standIns: { attachments: [] },
});
const batch = (content: Partial<SendBatchRecord['content']>) => ({ content }) as SendBatchRecord;

describe('shared bodies of bulk sends', () => {
  it('are shared only when no body template has a variable (the subject may)', () => {
    expect(hasSharedBody(batch({ subject: 'Hi {{name}}', htmlBody: '<p>news</p>', textBody: 'news' }))).toBe(true);
    expect(hasSharedBody(batch({ subject: 'Hi', htmlBody: '<a href="{{unsubscribe}}">x</a>' }))).toBe(false);
    expect(hasSharedBody(batch({ subject: 'Hi', textBody: 'Dear {{name}}' }))).toBe(false);
    expect(hasSharedBody(batch({ subject: 'Hi', htmlBody: '<p>x</p>', ampBody: '{{#if a}}a{{/if}}' }))).toBe(false);
  });

  it('composes a batch once for concurrent deliveries, and again after a failure', async () => {
    const cache = new SharedBodyCache();
    let calls = 0;
    const compose = async () => {
      calls += 1;
      return body(10);
    };
    const all = await Promise.all([cache.get('a', compose), cache.get('a', compose), cache.get('a', compose)]);
    expect(calls).toBe(1);
    expect(new Set(all).size).toBe(1);

    await expect(cache.get('f', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await Promise.resolve();
    expect(await cache.get('f', compose)).not.toBeNull();
    expect(calls).toBe(2);
  });

  it('stays within its entry and byte bounds, evicting the least recently used', async () => {
    const cache = new SharedBodyCache(3, 400);
    for (const id of ['a', 'b', 'c']) await cache.get(id, async () => body(100));
    await cache.get('a', async () => body(100)); // a is now the most recently used
    await cache.get('d', async () => body(100));
    await Promise.resolve();
    expect(cache.size).toEqual({ entries: 3, bytes: 300 });
    let recomposed = false;
    await cache.get('b', async () => ((recomposed = true), body(100))); // b was evicted
    expect(recomposed).toBe(true);
    await cache.get('big', async () => body(150)); // over a quarter of the bytes: not held
    await Promise.resolve();
    expect(cache.size.bytes).toBeLessThanOrEqual(400);
    expect(cache.size.entries).toBeLessThanOrEqual(3);
  });
});
