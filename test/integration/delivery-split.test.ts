/**
 * A send larger than a page is split by its `deliver-batch` job, one page and one continuation at a
 * time (src/delivery/jobs.ts). The split must happen once: a batch job run again after its split
 * committed lists a different page (some of the first delivered meanwhile) and enqueues a second
 * continuation beside the first, and the two chains then send overlapping pages. A worker killed
 * between the split's commit and the job's completion did that on a loaded machine (hundreds of
 * messages sent twice by test/integration/delivery-multinode.test.ts). The job now completes in the
 * split's own transaction.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MailplaneStore } from 'mailplane';
import { contextOf } from '../../src/instance-context.js';
import { DELIVER_BATCH_JOB } from '../../src/jobs/kinds.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { withJobStoreOverrides } from '../support/store-overrides.js';

/** The store of a worker that dies right after a batch job's handler: the runner's completion of it never lands. */
function dyingAfterBatchJobs(store: MailplaneStore): MailplaneStore {
  return withJobStoreOverrides(store, {
    complete: async (id, workerId) => {
      if ((await store.jobs.get(id))?.kind === DELIVER_BATCH_JOB) throw new Error('the worker died before this write');
      return store.jobs.complete(id, workerId);
    },
  });
}

describe.each(storeKinds)('a send split into pages (%s)', (kind) => {
  let env: DeliveryEnv;
  afterEach(() => env.close());

  it('is split once: a worker dying before it records a batch job done leaves nothing to split again', async () => {
    env = await startDeliveryEnv(kind, { pageSize: 5 }, { wrapStore: dyingAfterBatchJobs });
    const recipients = Array.from({ length: 12 }, (_, i) => `r${i}@${RCPT_DOMAIN}`);
    const entries = await env.send(recipients);
    for (const entry of entries) await env.waitForStatus(entry.messageId, 'delivered');
    // Each batch job (the first and its two continuations) completed with its split.
    const batchJobs = await contextOf(env.api.mailplane).store.jobs.countByState(DELIVER_BATCH_JOB);
    expect({ pending: batchJobs.pending, running: batchJobs.running }).toEqual({ pending: 0, running: 0 });
    expect(env.sink.received.map((m) => m.rcptTo[0]).sort()).toEqual([...recipients].sort());
  });
});
