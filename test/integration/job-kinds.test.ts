import { describe, expect, it, vi } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import type { JsonObject, Logger } from 'mailplane';
import {
  DELIVER_BATCH_JOB,
  DELIVER_MESSAGE_JOB,
  DELIVER_PAGE_JOB,
  DOMAIN_CHECK_JOB,
  IP_WARMUP_JOB,
  WEBHOOK_EVENTS_JOB,
  WEBHOOK_RETRY_JOB,
} from '../../src/jobs/index.js';
import { useTestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';

const until = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 10_000, interval: 20 });

describe.each(storeKinds)('job kinds on %s', (kind) => {
  let errors: { message: string; fields?: Record<string, unknown> }[];
  const api = useTestApi(kind, () => {
    errors = [];
    const logger: Logger = {
      info: () => {},
      warn: () => {},
      error: (message, fields) => errors.push({ message, fields }),
    };
    return { logger, jobs: { pollIntervalMs: 20 } };
  });

  it('keeps the kind strings that job rows already store', () => {
    expect([
      DELIVER_BATCH_JOB,
      DELIVER_PAGE_JOB,
      DELIVER_MESSAGE_JOB,
      IP_WARMUP_JOB,
      DOMAIN_CHECK_JOB,
      WEBHOOK_EVENTS_JOB,
      WEBHOOK_RETRY_JOB,
    ]).toEqual([
      'deliver-batch',
      'deliver-page',
      'deliver-message',
      'ip-warmup',
      'domain-check',
      'webhook-events',
      'webhook-retry',
    ]);
  });

  it('ends a job whose stored payload does not fit its kind dead, with an error naming the fields, and runs the others', async () => {
    const { store } = contextOf(api.mailplane);
    const now = contextOf(api.mailplane).clock.now();
    const bad: { kind: string; payload: JsonObject }[] = [
      { kind: DELIVER_MESSAGE_JOB, payload: { messageId: 42 } },
      { kind: DOMAIN_CHECK_JOB, payload: { domainId: 'seven', subAccountId: 1 } },
      { kind: IP_WARMUP_JOB, payload: { accountId: 1, ipId: 2, startedAt: 'yesterday' } },
      { kind: WEBHOOK_EVENTS_JOB, payload: { events: 'none' } },
      { kind: WEBHOOK_RETRY_JOB, payload: {} },
      { kind: DELIVER_PAGE_JOB, payload: { batchId: 'b', afterId: '', ids: [1, 2] } },
      { kind: DELIVER_BATCH_JOB, payload: { batchId: null } },
    ];
    const ids = (await store.jobs.enqueue(bad.map((job) => ({ ...job, runAt: now, dedupeKey: null })))).map(
      (r) => r.id!,
    );
    // A valid job of one of those kinds still runs (an unknown domain: it completes, doing nothing).
    const [good] = await contextOf(api.mailplane).jobs.enqueue([
      { kind: DOMAIN_CHECK_JOB, payload: { domainId: 999, subAccountId: 999 } },
    ]);
    api.mailplane.start();
    await until(async () => {
      for (const id of ids) expect(await store.jobs.get(id)).toMatchObject({ state: 'dead' });
    });
    expect(await store.jobs.get(ids[0]!)).toMatchObject({
      attempts: 1,
      lastError: expect.stringMatching(
        /^PermanentJobError: invalid payload of a deliver-message job: messageId: .*; attempt: /,
      ),
    });
    expect(await store.jobs.get(ids[1]!)).toMatchObject({
      lastError: expect.stringMatching(/invalid payload of a domain-check job: domainId: /),
    });
    expect(await store.jobs.get(ids[2]!)).toMatchObject({
      lastError: expect.stringMatching(/invalid payload of a ip-warmup job: startedAt: /),
    });
    expect(await store.jobs.get(ids[5]!)).toMatchObject({
      lastError: expect.stringMatching(/invalid payload of a deliver-page job: ids\.0: /),
    });
    await until(async () => expect(await store.jobs.get(good!.id!)).toBeNull());
    expect(errors.filter((e) => e.message === 'job failed permanently')).toHaveLength(bad.length);
    expect(errors.filter((e) => e.message !== 'job failed permanently')).toEqual([]);
  });
});
