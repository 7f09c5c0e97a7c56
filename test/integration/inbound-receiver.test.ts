/**
 * The inbound MX listener with a real SMTP client (nodemailer), a real webhook receiver and a
 * loopback DNS server: what a tenant's webhook receives (parsed, authenticated, signed, with its
 * attachments), replies threaded to a sent message, what is refused at `RCPT TO` and at DATA, and
 * the webhook's retries.
 */
import { Webhook } from 'standardwebhooks';
import { createInboundReceiver } from 'mailplane';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN } from '../support/delivery-env.js';
import { REMOTE_DOMAIN, startInboundEnv, type InboundEnv } from '../support/inbound.js';
import type { ReceivedDelivery } from '../support/webhook-receiver.js';
import { rawSmtp } from '../support/raw-smtp.js';

const INLINE_LIMIT = 1_000;

describe.each(storeKinds)('the inbound listener (%s)', (kind) => {
  let bench: InboundEnv;

  beforeEach(async () => {
    bench = await startInboundEnv(
      kind,
      { maxMessageBytes: 200_000, inlineAttachmentBytes: INLINE_LIMIT },
      { maxConcurrentPerWebhook: 1, busyDelayMs: 5_000 },
    );
  });
  afterEach(async () => {
    vi.useRealTimers();
    await bench?.close();
  });

  const posts = async (count: number): Promise<ReceivedDelivery[]> => {
    await vi.waitFor(() => expect(bench.hook.received.length).toBeGreaterThanOrEqual(count), {
      timeout: 15_000,
      interval: 20,
    });
    return bench.hook.received;
  };
  /** The standardwebhooks library's verdict, at the bench clock's time (it checks the timestamp against Date.now()). */
  const verified = (delivery: ReceivedDelivery): unknown => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(bench.env.clock.now());
    try {
      return new Webhook(bench.secret).verify(delivery.body, delivery.headers as Record<string, string>);
    } finally {
      vi.useRealTimers();
    }
  };
  const statusOf = async (id: string) => (await bench.messages()).find((message) => message.id === id)?.status;

  it('posts the parsed, authenticated message with its attachments, signed for standardwebhooks', async () => {
    const route = await bench.route(`support@${bench.domain}`, 'webhook');
    const large = Buffer.alloc(INLINE_LIMIT * 3, 7);
    const info = await bench.submit({
      to: `Support <support@${bench.domain}>`,
      cc: `other@${RCPT_DOMAIN}`,
      replyTo: `alice+replies@${REMOTE_DOMAIN}`,
      subject: 'Order 42',
      text: 'Where is my order?',
      html: '<p>Where is my order?</p>',
      attachments: [
        { filename: 'note.txt', content: 'small note', contentType: 'text/plain' },
        { filename: 'scan.bin', content: large, contentType: 'application/octet-stream' },
      ],
    });
    expect(info.response).toMatch(/^250 /);

    const [delivery] = await posts(1);
    expect(verified(delivery!)).toMatchObject({ type: 'inbound.received' });
    const payload = delivery!.json;
    expect(delivery!.headers['webhook-id']).toBe(payload.id);
    expect(payload).toMatchObject({
      routeId: route.id,
      envelope: { mailFrom: `alice@${REMOTE_DOMAIN}`, rcptTo: `support@${bench.domain}` },
      from: [{ address: `alice@${REMOTE_DOMAIN}`, name: 'Alice' }],
      to: [{ address: `support@${bench.domain}`, name: 'Support' }],
      cc: [{ address: `other@${RCPT_DOMAIN}`, name: '' }],
      replyTo: [{ address: `alice+replies@${REMOTE_DOMAIN}` }],
      subject: 'Order 42',
      text: 'Where is my order?',
      html: '<p>Where is my order?</p>',
      auth: { spf: 'pass', dkim: 'pass', dmarc: 'pass' },
      inReplyToMessageId: null,
      malformed: false,
    });
    expect(payload.headers).toContainEqual(['Subject', 'Order 42']);
    const [small, big] = payload.attachments;
    expect(small).toMatchObject({ filename: 'note.txt', contentType: 'text/plain', size: 10 });
    expect(Buffer.from(small.content, 'base64').toString()).toBe('small note');
    expect(big).toMatchObject({ filename: 'scan.bin', size: large.length });
    expect(big.content).toBeUndefined();

    // The large one through its signed link, served without an API key; a changed link is refused.
    const fetchLink = (url: string) => {
      const parsed = new URL(url);
      return bench.env.api.mailplane.handleLinks({
        method: 'GET',
        path: parsed.pathname.replace(/^\/t/, ''),
        headers: {},
        query: parsed.searchParams,
        rawBody: '',
      });
    };
    const fetched = await fetchLink(big.url);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(fetched.body as string, 'base64').equals(large)).toBe(true);
    expect((await fetchLink(big.url.replace('/1?', '/0?'))).status).toBe(404);

    await vi.waitFor(async () => expect(await statusOf(payload.id)).toBe('posted'), { timeout: 15_000 });
  });

  it('says dkim fail and spf fail for an unsigned message from an address SPF does not allow', async () => {
    await bench.route(`*@${bench.domain}`, 'webhook');
    bench.env.dns.txt(REMOTE_DOMAIN, 'v=spf1 ip4:192.0.2.1 -all');
    await bench.submit({ to: `anyone@${bench.domain}`, subject: 'hi', text: 'hi' }, { dkim: false });
    const [delivery] = await posts(1);
    expect(delivery!.json.auth).toMatchObject({ spf: 'fail', dkim: 'none', dmarc: 'fail' });
  });

  it('keeps a NUL of the subject in the payload, and as U+FFFD on the record (PostgreSQL holds no NUL in text)', async () => {
    await bench.route(`support@${bench.domain}`, 'webhook');
    expect((await bench.submit({ to: `support@${bench.domain}`, subject: 'a\u0000b', text: 'x' })).response).toMatch(
      /^250 /,
    );
    const [delivery] = await posts(1);
    expect(delivery!.json.subject).toBe('a\u0000b');
    expect((await bench.messages())[0]!.subject).toBe('a\ufffdb');
  });

  it('threads a reply whose In-Reply-To names a message sent through the API', async () => {
    await bench.route(`reply+*@${bench.domain}`, 'store');
    const [sent] = await bench.env.send([`bob@${RCPT_DOMAIN}`]);
    await bench.env.waitForStatus(sent!.messageId, 'delivered');
    const messageIdHeader = `<${sent!.messageId}@${bench.domain}>`;
    await bench.submit({
      to: `reply+7@${bench.domain}`,
      subject: 'Re: news',
      text: 'thanks',
      inReplyTo: messageIdHeader,
      references: [`<unrelated@${REMOTE_DOMAIN}>`, messageIdHeader],
    });
    const [stored] = await bench.messages();
    expect(stored).toMatchObject({ status: 'stored', inReplyToMessageId: sent!.messageId, subject: 'Re: news' });
    expect(stored!.raw?.toString()).toContain('thanks');
  });

  it('refuses an unknown recipient, a refused route and a domain that does not receive at RCPT TO', async () => {
    await bench.route(`support@${bench.domain}`, 'store');
    await bench.route(`noreply@${bench.domain}`, 'refuse');
    const refusal = (to: string) =>
      bench.submit({ to, subject: 'x', text: 'x' }).then(
        () => null,
        (error) => error,
      );
    expect(await refusal(`nobody@${bench.domain}`)).toMatchObject({
      responseCode: 550,
      response: expect.stringContaining(`5.1.1 <nobody@${bench.domain}>: no such recipient here`),
    });
    expect(await refusal(`noreply@${bench.domain}`)).toMatchObject({
      responseCode: 550,
      response: expect.stringContaining('5.7.1'),
    });
    expect(await refusal(`support@${RCPT_DOMAIN}`)).toMatchObject({ responseCode: 550 });
    expect(await bench.messages()).toEqual([]);
  });

  it('receives a message whose MIME cannot be read as raw text, and the connection goes on', async () => {
    await bench.route(`support@${bench.domain}`, 'webhook');
    // Parts nested 1,000 deep: mailparser refuses them (EMAXLEN).
    let open = '';
    let close = '';
    for (let i = 0; i < 1000; i++) {
      open += `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n`;
      close = `\r\n--b${i}--\r\n${close}`;
    }
    const client = await rawSmtp(bench.port);
    await client.command('EHLO mail.remote.test');
    expect(await client.command(`MAIL FROM:<alice@${REMOTE_DOMAIN}>`)).toMatch(/^250 /);
    expect(await client.command(`RCPT TO:<support@${bench.domain}>`)).toMatch(/^250 /);
    expect(await client.command('DATA')).toMatch(/^354 /);
    await client.send(
      `From: alice@${REMOTE_DOMAIN}\r\nSubject: deep\r\n${open}Content-Type: text/plain\r\n\r\nhello${close}\r\n.\r\n`,
    );
    expect(await client.reply()).toMatch(/^250 2\.0\.0 /);
    expect(await client.command('NOOP')).toMatch(/^250 /);
    client.close();
    const [delivery] = await posts(1);
    expect(delivery!.json).toMatchObject({ malformed: true, attachments: [], headers: [] });
    expect(delivery!.json.text).toContain('hello');
  });

  it('refuses a connection over the per-address cap with 421 4.7.0', async () => {
    const capped = createInboundReceiver(bench.env.api.mailplane, { maxConnectionsPerAddress: 2 });
    const { port } = await capped.listen(0, '127.0.0.1');
    try {
      const held = await Promise.all([1, 2].map(() => rawSmtp(port)));
      expect(held.map((c) => c.greeting.slice(0, 4))).toEqual(['220 ', '220 ']);
      const over = await rawSmtp(port);
      expect(over.greeting).toBe('421 4.7.0 Too many connections from your address, try again later');
      for (const client of [...held, over]) client.close();
    } finally {
      await capped.close();
    }
  });

  it('answers a message over the size limit 552 and keeps nothing', async () => {
    await bench.route(`support@${bench.domain}`, 'webhook');
    const error = await bench.submit({ to: `support@${bench.domain}`, subject: 'big', text: 'x'.repeat(300_000) }).then(
      () => null,
      (failure) => failure,
    );
    expect(error).toMatchObject({ responseCode: 552 });
    expect(await bench.messages()).toEqual([]);
    expect(bench.hook.received).toEqual([]);
  });

  it('answers 451 4.3.0 while the messages cannot be written, posts nothing, and takes the message once they can', async () => {
    await bench.route(`support@${bench.domain}`, 'webhook');
    await bench.renameTable('inbound_messages', 'inbound_messages_away');
    const mail = { to: `support@${bench.domain}`, subject: 'later', text: 'x' };
    expect(
      await bench.submit(mail).then(
        () => null,
        (error) => error,
      ),
    ).toMatchObject({
      responseCode: 451,
      response: expect.stringContaining('4.3.0'),
    });
    await bench.renameTable('inbound_messages_away', 'inbound_messages');
    expect((await bench.submit(mail)).response).toMatch(/^250 /);
    const [delivery] = await posts(1);
    expect(delivery!.json.subject).toBe('later');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(bench.hook.received).toHaveLength(1);
    expect(await bench.messages()).toHaveLength(1);
  });

  it('retries a webhook that answered 500 and ends posted on the 200, under one webhook-id', async () => {
    await bench.route(`support@${bench.domain}`, 'webhook');
    bench.hook.answer(500);
    await bench.submit({ to: `support@${bench.domain}`, subject: 'retry me', text: 'x' });
    const [first] = await posts(1);
    expect(await statusOf(first!.json.id)).toBe('pending');
    await bench.postsLogged(first!.json.id, 1);
    bench.env.advance(60_000);
    const [, second] = await posts(2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(verified(second!)).toMatchObject({ subject: 'retry me' });
    await vi.waitFor(async () => expect(await statusOf(first!.json.id)).toBe('posted'), { timeout: 15_000 });
    expect(bench.hook.received).toHaveLength(2);
  });

  it('posts to one route one at a time: a hanging receiver holds one slot, the next post waits its turn', async () => {
    await bench.route(`support@${bench.domain}`, 'webhook');
    bench.hook.answer('stall');
    await bench.submit({ to: `support@${bench.domain}`, subject: 'first', text: 'x' });
    await posts(1);
    await bench.submit({ to: `support@${bench.domain}`, subject: 'second', text: 'x' });
    // The second message's job finds the route at its cap and puts its post off (5 s of the bench's clock).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(bench.hook.connections().accepted).toBe(1);
    bench.hook.dropConnections();
    bench.env.advance(5_000);
    const [first, second] = await posts(2);
    expect(second!.json.subject).toBe('second');
    await vi.waitFor(async () => expect(await statusOf(second!.json.id)).toBe('posted'), { timeout: 15_000 });
    // The first, whose POST failed when its connection was dropped, is retried on the schedule.
    expect(await statusOf(first!.json.id)).toBe('pending');
    await bench.postsLogged(first!.json.id, 1);
    bench.env.advance(60_000);
    await vi.waitFor(async () => expect(await statusOf(first!.json.id)).toBe('posted'), { timeout: 15_000 });
  });

  it('ends failed with the reason once the retries are used up', async () => {
    await bench.route(`support@${bench.domain}`, 'webhook');
    bench.hook.always(500);
    await bench.submit({ to: `support@${bench.domain}`, subject: 'never', text: 'x' });
    const [first] = await posts(1);
    await bench.postsLogged(first!.json.id, 1);
    bench.env.advance(60_000);
    await posts(2);
    await vi.waitFor(async () => expect(await statusOf(first!.json.id)).toBe('failed'), { timeout: 15_000 });
    expect((await bench.messages())[0]!.detail).toMatch(/gave up after 2 attempts: .*500/);
  });
});
