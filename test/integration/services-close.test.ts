/**
 * `mailplane.close()` releases what the instance's runtime services hold: every TPSP transport it
 * built (also one replaced after its TPSP changed, which otherwise closes a minute later), the
 * instance transport, and no DNS check is cut off by the store closing under it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import type { DeliveryResult, Transport } from 'mailplane';
import { useTestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the JSON shape
type Json = any;

/** A transport that accepts everything and records what it sent and whether it was closed. */
function captureTransport(name: string) {
  const state = { name, sent: 0, closed: 0 };
  const transport: Transport = {
    send: async (): Promise<DeliveryResult> => {
      state.sent += 1;
      return { kind: 'delivered', smtpCode: 250, text: '250 2.0.0 queued' };
    },
    close: async () => {
      state.closed += 1;
    },
  };
  return { state, transport };
}

describe.each(storeKinds)('close() releases the runtime services (%s)', (kind) => {
  let dns: TestDnsServer;
  let sender: Sender;
  let tpspTransports: Array<ReturnType<typeof captureTransport>['state']>;
  let instance: ReturnType<typeof captureTransport>;

  beforeEach(async () => {
    dns = await startTestDnsServer();
  });
  afterEach(() => dns.close());
  const api = useTestApi(kind, () => {
    tpspTransports = [];
    instance = captureTransport('instance');
    return {
      dns: { servers: [{ host: dns.host, port: dns.port }], timeoutMs: 800, retries: 0, rdapBaseUrl: null },
      jobs: { pollIntervalMs: 25 },
      transport: instance.transport,
      tpspTransport: (t) => {
        const capture = captureTransport(`${t.host}:${t.port}`);
        tpspTransports.push(capture.state);
        return capture.transport;
      },
    };
  });
  beforeEach(async () => {
    sender = await createSender(api, 'close', 'sender.test');
  });

  const account = () => ({ account: api.accountKey });
  async function sendVia(pool: string): Promise<void> {
    const result = await api.call('POST', '/subaccount/email', {
      sub: sender.subAccount.apiKey,
      body: sendBody(`news@${sender.domain.name}`, ['a@rcpt.test'], { ippool: pool }),
    });
    expect(result.status, result.text).toBe(200);
    const id = result.body[0].messageId;
    await vi.waitFor(
      async () => expect((await api.call('GET', `/account/message/${id}`, account())).body.status).toBe('delivered'),
      { timeout: 15_000, interval: 20 },
    );
  }

  it('closes every TPSP transport, a replaced one too, and the instance transport', async () => {
    const tpsp = await api.call('POST', '/account/tpsp', {
      ...account(),
      body: { name: 'Relay', type: 3, host: '127.0.0.1', port: 2525, security: 'none' },
    });
    expect(tpsp.status, tpsp.text).toBe(200);
    const pool = await api.call('POST', '/account/ippool', {
      ...account(),
      body: { name: 'ViaRelay', tpsps: [tpsp.body.id], routingStrategy: 0, routingMetaData: '{}' },
    });
    expect(pool.status, pool.text).toBe(200);
    api.mailplane.start();
    await sendVia('ViaRelay');
    // A changed TPSP gets a new transport; the old one stays open for sends still on it.
    const changed = await api.call('PUT', `/account/tpsp/${tpsp.body.id}`, { ...account(), body: { port: 2526 } });
    expect(changed.status, changed.text).toBe(200);
    await sendVia('ViaRelay');
    expect(tpspTransports.map((t) => [t.name, t.sent, t.closed])).toEqual([
      ['127.0.0.1:2525', 1, 0],
      ['127.0.0.1:2526', 1, 0],
    ]);

    await api.mailplane.close();
    expect(tpspTransports.map((t) => t.closed)).toEqual([1, 1]);
    expect(instance.state.closed).toBe(1);
  });

  it('lets a domain check that is running finish and store its result before the store closes', async () => {
    const domain = (await contextOf(api.mailplane).store.domains.get(sender.subAccount.id, sender.domain.id))!;
    const dkimHost = `${domain.dkimSelector}._domainkey.${domain.name}`;
    // The DKIM query gets no answer: the check waits for the resolver's timeout.
    dns.behave(dkimHost, 'silent');
    const verify = api.call('POST', `/subaccount/domain/${sender.domain.id}/verify`, { sub: sender.subAccount.apiKey });
    await vi.waitFor(() => expect(dns.queries(dkimHost)).toBeGreaterThan(0), { timeout: 10_000, interval: 10 });

    await api.mailplane.close();
    const response: Json = await verify;
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ id: sender.domain.id, dkimVerified: false, verified: false });
  });
});
