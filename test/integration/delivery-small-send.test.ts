/**
 * A send that fits in one page is delivered by its `deliver-batch` job itself: one job slot per
 * small send, not a batch job and then a page job (docs/performance.md, "Fair queues"). A larger
 * send is still split into pages that several workers share. On each store, through the HTTP API
 * and a real SMTP sink.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';

/** Messages per page in these tests. */
const PAGE_SIZE = 3;

describe.each(storeKinds)('delivery of a send that fits in one page (%s)', (kind) => {
  let env: DeliveryEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  /** The delivery jobs pending or running while the sink withholds its reply to the data. */
  async function jobsWhileInFlight(recipients: number) {
    // A reply timeout far beyond the test's: the stalled attempt holds its job until the env closes.
    env = await startDeliveryEnv(kind, { pageSize: PAGE_SIZE, socketTimeoutMs: 300_000 }, { shutdownGraceMs: 0 });
    env.sink.behave({ data: 'stall' });
    await env.send(Array.from({ length: recipients }, (_, i) => `r${i}@${RCPT_DOMAIN}`));
    await vi.waitFor(() => expect(env!.sink.stalls).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });
    const { jobs } = contextOf(env.api.mailplane).store;
    const live = async (kind: string) => {
      const { pending, running } = await jobs.countByState(kind);
      return pending + running;
    };
    return { batch: await live('deliver-batch'), page: await live('deliver-page') };
  }

  it('delivers a one-page send from its deliver-batch job, with no deliver-page job', async () => {
    // The other delivery tests' one-recipient sends check that such a send is delivered.
    expect(await jobsWhileInFlight(PAGE_SIZE - 1)).toEqual({ batch: 1, page: 0 });
  });

  it('still splits a send larger than a page into deliver-page jobs', async () => {
    const { page } = await jobsWhileInFlight(PAGE_SIZE + 1);
    expect(page).toBeGreaterThan(0);
  });
});
