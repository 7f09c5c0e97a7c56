/**
 * The webhook outbox queues an event's post in the transaction that records the event; the job
 * runner learns of it when that transaction commits (the store's `onJobsDue`), not at its next poll.
 * The runner here polls once a minute, so a post that arrives within seconds was woken for.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useTestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { createSender, sendBody } from '../support/sending.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

describe.each(storeKinds)('webhook posts and the job runner (%s)', (kind) => {
  let receiver: WebhookReceiver | undefined;
  const api = useTestApi(kind, { webhooks: { allowPrivateTargets: true }, jobs: { pollIntervalMs: 60_000 } });
  afterEach(async () => {
    await api.mailplane.close();
    await receiver?.close();
    receiver = undefined;
  });

  it("posts an event at once after its transaction commits, not at the runner's next poll", async () => {
    receiver = await startWebhookReceiver();
    const created = await api.call('POST', '/account/webhook', {
      account: api.accountKey,
      body: { url: receiver.url, dropped: true },
    });
    expect(created.status).toBe(200);
    const sender = await createSender(api, 'wake', 'sender.test');
    const suppressed = await api.call('POST', '/subaccount/suppression', {
      sub: sender.subAccount.apiKey,
      body: { manual: [{ email: 'gone@rcpt.test' }] },
    });
    expect(suppressed.status).toBe(200);
    api.mailplane.start();
    // The runner's first round runs at once and finds nothing; then it sleeps for a minute, and only
    // a wake-up starts a job. (Were the round later than this pause, the test could only pass.)
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    // Every recipient suppressed: the send queues no delivery (which would wake the runner itself),
    // only the Dropped event's post.
    const sent = await api.call('POST', '/subaccount/email', {
      sub: sender.subAccount.apiKey,
      body: sendBody(`news@${sender.domain.name}`, ['gone@rcpt.test']),
    });
    expect(sent.status).toBe(200);
    await vi.waitFor(() => expect(receiver!.received).toHaveLength(1), { timeout: 15_000, interval: 20 });
    expect(receiver.received[0]!.json.event).toMatchObject({ type: 1, messageID: sent.body[0].messageId });
  });
});
