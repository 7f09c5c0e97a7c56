/**
 * The `forward` route action end to end: a message sent over SMTP to the inbound listener is
 * forwarded through mailplane's own delivery to the next hop (a real SMTP sink), as received, with
 * an ARC set and the receiving domain's DKIM signature that an independent verifier (mailauth)
 * accepts; the forward counts as a send of the sub-account (suppressions, block, activity).
 */
import { authenticate } from 'mailauth';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { mailauthResolver } from '../../src/inbound/authentication.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN } from '../support/delivery-env.js';
import { REMOTE_DOMAIN, startInboundEnv, type InboundEnv } from '../support/inbound.js';

/** The route helper's forward address (test/support/inbound.ts), served by the bench's sink. */
const FORWARD_TO = `elsewhere@${RCPT_DOMAIN}`;

/** What mailauth makes of a message, with the parts the listener's own types leave out. */
interface Verification {
  dkim?: { results?: Array<{ signingDomain?: string; status?: { result?: string } }> };
  arc?: { status?: { result?: string }; i?: number } | false;
  dmarc?: { status?: { result?: string } } | false;
}

describe.each(storeKinds)('forwarding received mail (%s)', (kind) => {
  let bench: InboundEnv;

  beforeEach(async () => {
    bench = await startInboundEnv(kind, { maxStoredRawBytes: 2_000 });
  });
  afterEach(async () => {
    await bench?.close();
  });

  const ctx = () => contextOf(bench.env.api.mailplane);
  const settled = async (id?: string) => {
    let found: Awaited<ReturnType<InboundEnv['messages']>>[number] | undefined;
    await vi.waitFor(
      async () => {
        const messages = await bench.messages();
        found = id ? messages.find((m) => m.id === id) : messages[0];
        expect(found?.status).toMatch(/^(forwarded|failed)$/);
      },
      { timeout: 15_000, interval: 25 },
    );
    return found!;
  };
  const forwardedAt = async (count: number) => {
    await vi.waitFor(
      () => expect(bench.env.sink.received.filter((m) => m.rcptTo.includes(FORWARD_TO)).length).toBe(count),
      { timeout: 15_000, interval: 25 },
    );
    return bench.env.sink.received.filter((m) => m.rcptTo.includes(FORWARD_TO));
  };
  const verify = async (raw: Buffer, mailFrom: string) =>
    (await authenticate(raw, {
      ip: '127.0.0.1',
      helo: 'mta.sender.test',
      mta: 'mx.rcpt.test',
      sender: mailFrom,
      disableBimi: true,
      resolver: mailauthResolver(ctx().resolver),
    })) as unknown as Verification;

  it('delivers the message as received, ARC-sealed and signed by the receiving domain, as a send of the sub-account', async () => {
    await bench.route(`desk@${bench.domain}`, 'forward');
    const attachment = Buffer.alloc(6_000, 'z'); // beyond maxStoredRawBytes: a forward keeps its raw whatever its size
    await bench.submit({
      to: `desk@${bench.domain}`,
      subject: 'Invoice {{number}}',
      text: 'Please find it attached.',
      attachments: [{ filename: 'invoice.txt', content: attachment }],
    });

    const record = await settled();
    expect(record).toMatchObject({ status: 'forwarded', rcptTo: `desk@${bench.domain}` });
    const forwardId = /as message ([0-9a-f-]{36})/.exec(record.detail)?.[1];
    expect(record.detail).toContain(FORWARD_TO);
    const [delivered] = await forwardedAt(1);
    const view = await bench.env.waitForStatus(forwardId!, 'delivered');
    expect(view).toMatchObject({ to: { email: FORWARD_TO } });

    // The envelope sender is the forward's own VERP address on the return-path host: SPF holds.
    const domain = await ctx().store.domains.findByName(record.subAccountId, bench.domain);
    expect(delivered!.mailFrom).toBe(`b+${forwardId}@${domain!.returnPathHost}`);
    // The message received is delivered byte for byte after the headers mailplane put before it.
    const received = (await ctx().store.inbound.getMessage(record.subAccountId, record.id))!.raw!;
    expect(delivered!.raw.subarray(delivered!.raw.length - received.length).equals(received)).toBe(true);
    const added = delivered!.raw.subarray(0, delivered!.raw.length - received.length).toString();
    expect(added).toMatch(
      /^DKIM-Signature: [^]*\r\nARC-Seal: i=1; [^]*ARC-Message-Signature: i=1; [^]*ARC-Authentication-Results: i=1; [\w.-]+;\r\n spf=pass /,
    );
    expect(added).toContain(`smtp.mailfrom=alice@${REMOTE_DOMAIN}`);

    // An independent verifier: the author's signature and mailplane's both pass, the ARC chain passes,
    // and DMARC passes on the author's aligned signature although SPF at this hop is mailplane's.
    const verdict = await verify(delivered!.raw, delivered!.mailFrom);
    const dkim = (verdict.dkim?.results ?? []).map((r) => [r.signingDomain, r.status?.result]);
    expect(dkim).toEqual(
      expect.arrayContaining([
        [bench.domain, 'pass'],
        [REMOTE_DOMAIN, 'pass'],
      ]),
    );
    expect(verdict.arc && verdict.arc.status?.result).toBe('pass');
    expect(verdict.dmarc && verdict.dmarc.status?.result).toBe('pass');

    // A second forwarder (here mailplane again) carries the chain on: its set is i=2 and seals cv=pass.
    await bench.route(`hop2@${bench.domain}`, 'forward');
    await bench.submit(
      { envelope: { from: delivered!.mailFrom, to: [`hop2@${bench.domain}`] }, raw: delivered!.raw },
      { dkim: false },
    );
    const [, second] = await forwardedAt(2);
    expect(second!.raw.toString()).toMatch(/\r\nARC-Seal: i=2; [^]*cv=pass;/);
    const chained = await verify(second!.raw, second!.mailFrom);
    expect(chained.arc && chained.arc.status?.result).toBe('pass');
  });

  it('fails the forward of a message to an address suppressed since the route was made, and says why', async () => {
    await bench.route(`desk@${bench.domain}`, 'forward');
    const sub = bench.env.key;
    const suppressed = await bench.env.api.call('POST', '/subaccount/suppression', {
      sub,
      body: { manual: [{ email: FORWARD_TO }] },
    });
    expect(suppressed.status).toBeLessThan(300);
    await bench.submit({ to: `desk@${bench.domain}`, subject: 'hello', text: 'hi' });
    const record = await settled();
    expect(record.status).toBe('failed');
    expect(record.detail).toMatch(/dropped .*suppress/i);
    expect(bench.env.sink.received.filter((m) => m.rcptTo.includes(FORWARD_TO))).toHaveLength(0);
  });

  it('fails the forward of a blocked sub-account, and forwards again on redelivery once it is unblocked', async () => {
    await bench.route(`desk@${bench.domain}`, 'forward');
    const { api, sender } = bench.env;
    const block = (blocked: boolean) =>
      api.call('PUT', `/account/subaccount/${sender.subAccount.id}`, {
        account: api.accountKey,
        body: { blocked, block_reason: blocked ? 'billing' : '' },
      });
    expect((await block(true)).status).toBe(200);
    await bench.submit({ to: `desk@${bench.domain}`, subject: 'hello', text: 'hi' });
    const record = await settled();
    expect(record.status).toBe('failed');
    expect(record.detail).toContain('blocked');

    expect((await block(false)).status).toBe(200);
    const again = await bench.env.api.call('POST', `/subaccount/inbound/message/${record.id}/redeliver`, {
      sub: bench.env.key,
    });
    expect(again.body.status).toBe('pending');
    expect((await settled(record.id)).status).toBe('forwarded');
    await forwardedAt(1);
  });

  it('fails the forward when the route now points at a domain this instance receives for (a loop)', async () => {
    const route = await bench.route(`desk@${bench.domain}`, 'forward');
    await ctx().store.inbound.updateRoute(route.subAccountId, route.id, {
      forwardTo: `other@${bench.domain}`,
      updated: route.updated,
    });
    await bench.submit({ to: `desk@${bench.domain}`, subject: 'hello', text: 'hi' });
    const record = await settled();
    expect(record).toMatchObject({ status: 'failed' });
    expect(record.detail).toContain('loop');
  });
});
