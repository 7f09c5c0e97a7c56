import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { smartHostTransport } from '../../adapters/transport/smtp/index.js';
import { useTestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { createSender, sendBody } from '../support/sending.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

describe.each(storeKinds)('smart-host transport (%s)', (kind) => {
  let sink: SmtpSink;
  beforeEach(async () => {
    sink = await startSmtpSink();
  });
  afterEach(() => sink.close());
  const api = useTestApi(kind, () => ({
    jobs: { pollIntervalMs: 25 },
    transport: smartHostTransport({
      host: '127.0.0.1',
      port: sink.port,
      rejectUnauthorized: false,
      ehloName: 'relay-client.test',
    }),
  }));
  beforeEach(() => api.mailplane.start());

  it('relays every recipient domain through the one host, over STARTTLS, and records the relay reply', async () => {
    const sender = await createSender(api, 'relay', 'sender.test');
    const send = await api.call('POST', '/subaccount/email', {
      sub: sender.subAccount.apiKey,
      body: sendBody('news@sender.test', ['a@one.example', 'b@two.example']),
    });
    expect(send.status).toBe(200);
    await vi.waitFor(() => expect(sink.received).toHaveLength(2), { timeout: 10_000 });
    expect(sink.received.map((m) => m.rcptTo[0]).sort()).toEqual(['a@one.example', 'b@two.example']);
    expect(sink.received.every((m) => m.tls && m.ehlo === 'relay-client.test')).toBe(true);
    for (const entry of send.body) {
      await vi.waitFor(
        async () => {
          const view = (await api.call('GET', `/account/message/${entry.messageId}`, { account: api.accountKey })).body;
          expect(view.status).toBe('delivered');
          expect(view.events[1].smtpDescription).toContain('250');
        },
        { timeout: 10_000, interval: 20 },
      );
    }
  });
});
