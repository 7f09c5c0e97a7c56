/**
 * The inbound listener's per-client message rate (`maxMessagesPerMinutePerAddress`) and its
 * remembered `RCPT TO` lookups, over real SMTP on loopback: a client past its rate is answered
 * `450 4.7.1` at `MAIL FROM` while another address is not, and gets its allowance back as the
 * minute passes; a route created or deleted through the API counts from the next `RCPT TO`, while
 * one written past the API is seen once the remembered answer ages out.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { parsePattern } from '../../src/inbound/patterns.js';
import { RECIPIENT_LOOKUP_TTL_MS } from '../../src/domain/recipient-directory.js';
import { nowNs } from '../../src/model/time.js';
import { storeKinds } from '../support/databases.js';
import { startInboundEnv, type InboundEnv } from '../support/inbound.js';
import { rawSmtp, type RawSmtp } from '../support/raw-smtp.js';

/** Opens a session from `localAddress` and says EHLO. */
async function session(bench: InboundEnv, localAddress = '127.0.0.1'): Promise<RawSmtp> {
  const smtp = await rawSmtp(bench.port, '127.0.0.1', localAddress);
  expect(smtp.greeting).toMatch(/^220 /);
  expect(await smtp.command('EHLO client.remote.test')).toMatch(/^250/);
  return smtp;
}

/** Sends one whole message in `smtp`, answering the DATA's reply. */
async function sendOne(smtp: RawSmtp, to: string): Promise<string> {
  expect(await smtp.command('MAIL FROM:<alice@remote.test>')).toMatch(/^250 /);
  expect(await smtp.command(`RCPT TO:<${to}>`)).toMatch(/^250 /);
  expect(await smtp.command('DATA')).toMatch(/^354 /);
  return smtp.command(`Subject: hello\r\n\r\nhi\r\n.`);
}

describe.each(storeKinds)('the inbound listener’s rate and lookups (%s)', (kind) => {
  let bench: InboundEnv | undefined;
  afterEach(async () => {
    await bench?.close();
    bench = undefined;
  });

  it('answers 450 4.7.1 at MAIL FROM past maxMessagesPerMinutePerAddress, per client address, and refills over the minute', async () => {
    bench = await startInboundEnv(kind, { maxMessagesPerMinutePerAddress: 2 });
    await bench.route(`support@${bench.domain}`, 'store');
    const smtp = await session(bench);
    expect(await sendOne(smtp, `support@${bench.domain}`)).toMatch(/^250 /);
    expect(await sendOne(smtp, `support@${bench.domain}`)).toMatch(/^250 /);
    const refused = await smtp.command('MAIL FROM:<alice@remote.test>');
    expect(refused).toMatch(/^450 4\.7\.1 Too many messages from your address: at most 2 a minute/);
    // The session goes on: the client may try again later on the same connection.
    expect(await smtp.command('NOOP')).toMatch(/^250 /);
    expect(await bench.messages()).toHaveLength(2);

    // Another client address has its own allowance.
    const other = await session(bench, '127.0.0.2');
    expect(await sendOne(other, `support@${bench.domain}`)).toMatch(/^250 /);
    other.close();

    // Half a minute gives back one message of two.
    bench.env.clock.advance(30_000);
    expect(await sendOne(smtp, `support@${bench.domain}`)).toMatch(/^250 /);
    expect(await smtp.command('MAIL FROM:<alice@remote.test>')).toMatch(/^450 4\.7\.1 /);
    smtp.close();
    expect(await bench.messages()).toHaveLength(4);
  });

  it('takes mail for a route created through the API at once, and refuses it at once once deleted', async () => {
    bench = await startInboundEnv(kind);
    const { api, key } = bench.env;
    await bench.route(`support@${bench.domain}`, 'store');
    const smtp = await session(bench);
    expect(await smtp.command('MAIL FROM:<alice@remote.test>')).toMatch(/^250 /);
    // The domain and its routes are now remembered, without sales@.
    expect(await smtp.command(`RCPT TO:<sales@${bench.domain}>`)).toMatch(/^550 5\.1\.1 /);

    const created = await api.call('POST', '/subaccount/route', {
      sub: key,
      body: { pattern: `sales@${bench.domain}`, action: 'store' },
    });
    expect(created.status).toBe(201);
    expect(await smtp.command(`RCPT TO:<sales@${bench.domain}>`)).toMatch(/^250 /);

    const changed = await api.call('PUT', `/subaccount/route/${created.body.id}`, {
      sub: key,
      body: { action: 'refuse' },
    });
    expect(changed.status).toBe(200);
    expect(await smtp.command(`RCPT TO:<sales@${bench.domain}>`)).toMatch(/^550 5\.7\.1 /);

    expect((await api.call('DELETE', `/subaccount/route/${created.body.id}`, { sub: key })).status).toBe(200);
    expect(await smtp.command(`RCPT TO:<sales@${bench.domain}>`)).toMatch(/^550 5\.1\.1 /);

    // Receiving disabled through the API: seen at once (enabling is in sandbox-inbound.test.ts: this
    // bench has no inbound.hostname, which enabling through the API needs).
    const domainId = bench.env.sender.domain.id;
    expect(await smtp.command(`RCPT TO:<support@${bench.domain}>`)).toMatch(/^250 /);
    expect((await api.call('DELETE', `/subaccount/domain/${domainId}/inbound`, { sub: key })).status).toBe(200);
    expect(await smtp.command(`RCPT TO:<support@${bench.domain}>`)).toMatch(/^550 5\.1\.1 /);
    smtp.close();
  });

  it('remembers a domain’s routes for a few seconds: a route written past the API counts once that passes', async () => {
    bench = await startInboundEnv(kind);
    await bench.route(`support@${bench.domain}`, 'store');
    const smtp = await session(bench);
    expect(await smtp.command('MAIL FROM:<alice@remote.test>')).toMatch(/^250 /);
    expect(await smtp.command(`RCPT TO:<billing@${bench.domain}>`)).toMatch(/^550 5\.1\.1 /);

    // As another node's write would be: straight into the store, which this node is not told of.
    const ctx = contextOf(bench.env.api.mailplane);
    const parsed = parsePattern(`billing@${bench.domain}`);
    if (!parsed.ok) throw new Error(parsed.message);
    const written = await ctx.store.inbound.createRoute({
      accountId: bench.env.sender.subAccount.accountId,
      subAccountId: bench.env.sender.subAccount.id,
      ...parsed.value,
      action: 'store',
      url: null,
      secretSealed: null,
      forwardTo: null,
      created: nowNs(ctx.clock),
    });
    expect(written.ok).toBe(true);
    expect(await smtp.command(`RCPT TO:<billing@${bench.domain}>`)).toMatch(/^550 5\.1\.1 /);

    bench.env.clock.advance(RECIPIENT_LOOKUP_TTL_MS);
    expect(await smtp.command(`RCPT TO:<billing@${bench.domain}>`)).toMatch(/^250 /);
    smtp.close();
  });
});
