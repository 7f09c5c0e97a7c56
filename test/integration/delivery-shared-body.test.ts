import { simpleParser } from 'mailparser';
import { contextOf } from '../../src/instance-context.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SharedBodyCache } from '../../src/delivery/body-cache.js';
import { composeMessage, DkimKeyCache } from '../../src/delivery/compose.js';
import { renderMessage, TemplateCache } from '../../src/sending/render.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';

const headOf = (raw: Buffer) =>
  raw
    .toString()
    .split('\r\n\r\n')[0]!
    .replace(/\r\n[ \t]+/g, ' ');
const bodyOf = (raw: Buffer) => raw.subarray(raw.indexOf('\r\n\r\n') + 4).toString();
const listUnsubscribe = (raw: Buffer) => /^List-Unsubscribe: <([^>]+)>$/m.exec(headOf(raw))?.[1];

// Long, non-ASCII HTML: base64-encoded parts, as a real newsletter.
const NEWSLETTER = `<html><body><h1>Café news</h1>${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n'.repeat(300)}</body></html>`;

describe.each(storeKinds)('bulk sends with one body for every recipient (%s)', (kind) => {
  let env: DeliveryEnv;
  beforeEach(async () => {
    env = await startDeliveryEnv(kind);
  });
  afterEach(() => env.close());

  it('delivers each recipient its own headers and unsubscribe link over the same body, DKIM-verifiable', async () => {
    const to = ['ann', 'bob', 'cy'].map((n) => ({ email: `${n}@${RCPT_DOMAIN}`, customFields: { first: n } }));
    const entries = await env.send([], {
      to,
      subject: 'Hi {{first}}',
      htmlBody: NEWSLETTER,
      textBody: 'The same for everyone',
      preText: 'This week',
      attachments: [{ filename: 'a.txt', content: Buffer.from('attached bytes').toString('base64') }],
    });
    for (const e of entries) await env.waitForStatus(e.messageId, 'delivered');
    expect(env.sink.received).toHaveLength(3);

    const bodies = new Set<string>();
    for (const got of env.sink.received) {
      const entry = entries.find((e) => e.to === got.rcptTo[0])!;
      expect((await env.verifyDkim(got.raw)).status).toBe('pass');
      const mail = await simpleParser(got.raw);
      const first = got.rcptTo[0]!.split('@')[0];
      expect(mail.subject).toBe(`Hi ${first}`);
      expect(mail.messageId).toBe(`<${entry.messageId}@sender.test>`);
      expect(mail.html).toContain('Café news');
      expect(mail.html).toContain('This week');
      expect(mail.text?.trim()).toBe('The same for everyone');
      expect(mail.attachments.filter((a) => a.filename).map((a) => a.content.toString())).toEqual(['attached bytes']);
      // The one-click link is this message's own.
      expect(listUnsubscribe(got.raw)).toContain(`.${entry.messageId}.`);
      expect(headOf(got.raw)).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
      bodies.add(bodyOf(got.raw));
    }
    expect(bodies.size).toBe(1);
  });

  // Multipart, and single-part bodies whose transfer encoding nodemailer picks from the content.
  const variants: Record<string, Record<string, unknown>> = {
    'html and text': { htmlBody: NEWSLETTER, textBody: 'plain', headers: { 'X-Campaign': 'c1' } },
    'html only, non-ASCII': { htmlBody: NEWSLETTER },
    'short plain text only': { textBody: 'short plain' },
    'long-line plain text only': { textBody: 'x'.repeat(200) },
    'short plain text with bare LF and CR (7bit, made CRLF)': {
      textBody: 'one\ntwo\rthree',
      htmlBody: '<p>one</p>\n<p>two</p>',
    },
    'empty html with text (no html part)': { htmlBody: '', textBody: 'only text' },
    'html with a forwarded message and a binary attachment': {
      htmlBody: NEWSLETTER,
      attachments: [
        { filename: 'fwd.eml', content: Buffer.from('Subject: old\n\nbody\n').toString('base64') },
        { filename: 'a.bin', content: Buffer.from([0, 1, 2, 0xff]).toString('base64') },
      ],
    },
  };
  it.each(Object.keys(variants))(
    'composes the same message through the shared body as composed alone (%s)',
    async (variant) => {
      const [entry] = await env.send([`ann@${RCPT_DOMAIN}`], {
        subject: 'Hi',
        textBody: undefined,
        ...variants[variant],
      });
      await env.waitForStatus(entry!.messageId, 'delivered');
      const ctx = contextOf(env.api.mailplane);
      const found = (await ctx.store.messages.getForDelivery(entry!.messageId))!;
      const domain = (await ctx.store.domains.get(found.batch.subAccountId, found.batch.domainId!))!;
      const input = {
        batch: found.batch,
        message: found.message,
        domain,
        rendered: renderMessage(
          ctx,
          await new TemplateCache(ctx.templateCompiler).get(found.batch),
          found.message,
          found.batch,
        ),
        dkimKey: new DkimKeyCache().get(ctx, domain),
        dateMs: Date.UTC(2026, 4, 1),
      };
      const cache = new SharedBodyCache();
      const shared = await composeMessage(ctx, input, cache);
      const again = await composeMessage(ctx, input, cache);
      const alone = await composeMessage(ctx, input);
      expect(cache.size.entries).toBe(1);
      expect(cache.size.bytes).toBeGreaterThan(0); // the body is held: the shared path was taken
      // Identical bytes but for the DKIM-Signature field and the random multipart boundary.
      const normal = (raw: Buffer) =>
        raw
          .toString()
          .replace(/^DKIM-Signature:.*\r\n(?:[ \t].*\r\n)*/, '')
          .replace(/--_NmP-[0-9a-f]+-Part_/g, 'BOUNDARY');
      expect(normal(shared.raw)).toBe(normal(alone.raw));
      expect(normal(again.raw)).toBe(normal(shared.raw));
      for (const raw of [shared.raw, again.raw]) expect((await env.verifyDkim(raw)).status).toBe('pass');
    },
  );

  it('composes per recipient when the body is personalised', async () => {
    const to = ['ann', 'bob'].map((n) => ({ email: `${n}@${RCPT_DOMAIN}`, customFields: { first: n } }));
    const entries = await env.send([], {
      to,
      subject: 'Hi',
      htmlBody: `<p>Dear {{first}}</p>${NEWSLETTER}<a href="{{unsubscribe}}">stop</a>`,
      textBody: 'Hi',
    });
    for (const e of entries) await env.waitForStatus(e.messageId, 'delivered');
    expect(env.sink.received).toHaveLength(2);
    for (const got of env.sink.received) {
      expect((await env.verifyDkim(got.raw)).status).toBe('pass');
      const mail = await simpleParser(got.raw);
      const first = got.rcptTo[0]!.split('@')[0];
      expect(mail.html).toContain(`<p>Dear ${first}</p>`);
      // The body's link is the header's link: this message's own.
      expect(mail.html).toContain(listUnsubscribe(got.raw));
    }
    expect(bodyOf(env.sink.received[0]!.raw)).not.toBe(bodyOf(env.sink.received[1]!.raw));
  });
});
