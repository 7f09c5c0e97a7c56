import { simpleParser } from 'mailparser';
import { contextOf } from '../../src/instance-context.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { TEST_SECRET } from '../support/api.js';
import { createSecretBox } from 'mailplane';

describe.each(storeKinds)('the message on the wire (%s)', (kind) => {
  let env: DeliveryEnv;
  beforeEach(async () => {
    env = await startDeliveryEnv(kind);
  });
  afterEach(() => env.close());

  it('delivers a personalised, DKIM-signed message with VERP, Message-ID and one-click unsubscribe', async () => {
    const [entry] = await env.send([`ann@${RCPT_DOMAIN}`], {
      to: [
        {
          email: `ann@${RCPT_DOMAIN}`,
          name: 'Ann',
          customFields: { first: 'Ann' },
          cc: [{ email: `carl@${RCPT_DOMAIN}`, name: 'Carl' }],
          bcc: [{ email: `bo@${RCPT_DOMAIN}` }],
        },
      ],
      subject: 'Hello {{first}}',
      htmlBody: '<p>Hi {{first}}</p><a href="{{unsubscribe}}">unsubscribe</a>',
      textBody: 'Hi {{first}}',
      ampBody: '<!doctype html><html ⚡4email><body>amp {{first}}</body></html>',
      replyTo: { email: `help@sender.test`, name: 'Help' },
      headers: { 'X-Campaign': 'spring-7' },
      attachments: [{ filename: 'a.txt', content: Buffer.from('attached bytes').toString('base64') }],
      preText: 'Preview here',
    });
    const view = await env.waitForStatus(entry!.messageId, 'delivered');
    expect(view.events.map((e: { type: number }) => e.type)).toEqual([0, 2]);

    // The cc and bcc copies are messages of their own, each in its own transaction
    // (test/integration/delivery-copies.test.ts); this is the recipient's.
    await env.waitForMessage(entry!.messageId, () => expect(env.sink.received).toHaveLength(3));
    const got = env.sink.received.find((m) => m.rcptTo.includes(`ann@${RCPT_DOMAIN}`))!;
    expect(got.mailFrom).toBe(`b+${entry!.messageId}@${(await domain(env)).returnPathHost}`);
    expect(got.rcptTo).toEqual([`ann@${RCPT_DOMAIN}`]);
    expect(got.ehlo).toBe('mta.mailplane.test');
    expect(got.tls).toBe(true); // opportunistic STARTTLS

    const dkim = await env.verifyDkim(got.raw);
    expect(dkim.status).toBe('pass');
    expect(dkim.domain).toBe('sender.test');
    for (const h of ['from', 'subject', 'message-id', 'list-unsubscribe', 'list-unsubscribe-post'])
      expect(dkim.signedHeaders).toContain(h);

    const mail = await simpleParser(got.raw);
    expect(mail.subject).toBe('Hello Ann');
    expect(mail.messageId).toBe(`<${entry!.messageId}@sender.test>`);
    expect(mail.text?.trim()).toBe('Hi Ann');
    expect(mail.html).toContain('<p>Hi Ann</p>');
    expect(mail.html).toContain('Preview here');
    expect(mail.headers.get('x-campaign')).toBe('spring-7');
    const head = got.raw
      .toString()
      .split('\r\n\r\n')[0]!
      .replace(/\r\n[ \t]+/g, ' ');
    expect(head).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    expect(mail.replyTo?.text).toContain('help@sender.test');
    expect(mail.cc && !Array.isArray(mail.cc) ? mail.cc.text : '').toContain(`carl@${RCPT_DOMAIN}`);
    expect(got.raw.toString()).not.toMatch(/^bcc:/im);
    expect(mail.attachments.filter((a) => a.filename).map((a) => [a.filename, a.content.toString()])).toEqual([
      ['a.txt', 'attached bytes'],
    ]);
    expect(got.raw.toString()).toContain('text/x-amp-html');
    // The List-Unsubscribe link is the signed link of this message, the same one {{unsubscribe}} rendered.
    const link = /^List-Unsubscribe: <(https?:[^>]+)>$/m.exec(head)?.[1];
    expect(link).toBeDefined();
    expect(mail.html).toContain(link);
    const token = link!.split('/').pop()!;
    const [code, id, signature] = token.split('.');
    expect([code, id]).toEqual(['u', entry!.messageId]);
    expect(createSecretBox(TEST_SECRET).verify(`u.${id}`, signature!)).toBe(true);

    // Each envelope recipient counts, as SendGrid and Postmark count them: the recipient and its two copies.
    await vi.waitFor(
      async () => {
        const stats = await env.api.call('GET', '/subaccount/stat/aggregate', {
          sub: env.key,
          query: { from: '2026-05-01', to: '2026-05-01' },
        });
        expect(stats.body).toMatchObject({ processed: 3, delivered: 3, hardBounced: 0, softBounced: 0 });
      },
      { timeout: 15_000, interval: 20 },
    );
  });

  // Short plain bodies go out as 7bit, as given: a bare LF or CR there would be turned into CRLF by
  // the SMTP layer after the DKIM signature was computed over it.
  it('signs the bytes it sends when bodies have bare LF and CR line breaks (7bit parts), and keeps the text', async () => {
    const [entry] = await env.send([`ann@${RCPT_DOMAIN}`], {
      subject: 'Lines',
      textBody: 'one\ntwo\rthree\r\nfour\n',
      htmlBody: '<p>one</p>\n<p>two</p>\r<p>three</p>',
      // A message/* part is sent as is too.
      attachments: [{ filename: 'fwd.eml', content: Buffer.from('Subject: old\n\nbody\nline\n').toString('base64') }],
    });
    await env.waitForStatus(entry!.messageId, 'delivered');
    const got = env.sink.received[0]!;
    expect(got.raw.toString()).toMatch(/^Content-Transfer-Encoding: 7bit$/m); // the case in point
    expect((await env.verifyDkim(got.raw)).status).toBe('pass');
    const mail = await simpleParser(got.raw);
    // mailparser shows the forwarded message inline, after the text.
    expect(mail.text?.split(/\r?\n/).filter(Boolean)).toEqual([
      'one',
      'two',
      'three',
      'four',
      'Subject: old',
      'body',
      'line',
    ]);
    expect(mail.html).toMatch(/<p>one<\/p>\r?\n<p>two<\/p>\r?\n<p>three<\/p>/);
  });

  it('falls back to the next MX in preference order, and to the A record when there is no MX', async () => {
    env.dns.set('multi.test', 'MX', [
      { exchange: 'down.multi.test', preference: 5 },
      { exchange: 'mx.rcpt.test', preference: 20 },
    ]);
    env.dns.set('down.multi.test', 'A', ['127.0.0.9']); // nothing listens there: refused
    env.dns.set('bare.test', 'A', ['127.0.0.1']);
    const entries = await env.send(['a@multi.test', 'b@bare.test']);
    for (const e of entries) await env.waitForStatus(e.messageId, 'delivered');
    expect(env.sink.received.map((m) => m.rcptTo[0]).sort()).toEqual(['a@multi.test', 'b@bare.test']);
  });
});

async function domain(env: DeliveryEnv) {
  return (await contextOf(env.api.mailplane).store.domains.get(env.sender.subAccount.id, env.sender.domain.id))!;
}
