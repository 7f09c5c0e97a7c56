import { Readable } from 'node:stream';
import MailComposer from 'nodemailer/lib/mail-composer';
import { describe, expect, it } from 'vitest';
import { bodyContent } from '../../src/delivery/compose.js';
import { serializeMime, serializeMimeParts, wrappedBase64 } from '../../src/delivery/mime-wire.js';

type Mail = ConstructorParameters<typeof MailComposer>[0];

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
const LOREM = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x80, 0x0a, 0x0d]);

/** The options compose.ts gives MailComposer, with a fixed boundary, date and Message-ID. */
function mail(extra: Mail): Mail {
  return {
    from: { name: 'News', address: 'news@sender.test' },
    to: [{ name: 'Ann', address: 'ann@rcpt.test' }],
    subject: 'Hello',
    textEncoding: 'base64',
    baseBoundary: '0123456789abcdef',
    messageId: '<0b6a4a8e-3f7c-4d2e-9a51-2f7d1c9e8b10@sender.test>',
    date: new Date(Date.UTC(2026, 4, 1, 12, 30)),
    headers: {
      'List-Unsubscribe': '<https://t.test/unsubscribe/u.x.y>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
    ...extra,
  };
}

const shapes: Record<string, Mail> = {
  'text only, short plain (7bit)': { text: 'Hi Ann,\r\nsee you.\r\n' },
  'text only, no final line break': { text: 'Hi Ann' },
  'html only': { html: `<p>${LOREM}</p>` },
  'text and html': { text: 'Hi', html: '<p>Hi</p>' },
  'text, html and amp': { text: 'Hi', html: '<p>Hi</p>', amp: '<!doctype html><html ⚡4email><body>amp</body></html>' },
  'empty text body': { text: '' },
  'empty html with text': { text: 'Hi', html: '' },
  'no body at all': {},
  'non-ASCII subject, names and bodies': {
    subject: 'Grüße aus Köln — 你好 🎉',
    from: { name: 'Zoë Müller', address: 'zoe@sender.test' },
    to: [{ name: 'Łukasz Żółć', address: 'lukasz@rcpt.test' }],
    text: 'Grüße\nZoë',
    html: '<p>Café ☕</p>',
  },
  'long lines over 76': { text: 'x'.repeat(77), html: `<p>${LOREM} ${LOREM}</p>` },
  'long lines over 998': { text: `${'y'.repeat(1200)}\r\nshort`, html: 'z'.repeat(5000) },
  'lines of exactly 76': { text: `${'a'.repeat(76)}\r\n${'b'.repeat(76)}` },
  'bare LF in 7bit text': { text: 'one\ntwo\nthree\n', html: '<p>one</p>\n<p>two</p>' },
  'lone CR in bodies, ending in CR': { text: 'one\rtwo\r', html: '<p>a</p>\r<p>b</p>\r' },
  'mixed CRLF, LF and CR': { text: 'a\r\nb\nc\rd\r\n\r\n' },
  'control characters': { text: 'bell\u0007 and tab\tand nul\u0000' },
  'text over 128 KB': { text: `${'short line\r\n'.repeat(12000)}` },
  '100 KB html, as the benchmark': {
    text: 'Hello 1',
    html: `<p>Hello 1</p>${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n'.repeat(1700)}`,
  },
  'attachments: text, binary, empty, non-ASCII name': {
    text: 'Hi',
    html: '<p>Hi</p>',
    attachments: [
      { filename: 'notes.txt', content: b64('line one\nline two\n'), encoding: 'base64' },
      { filename: 'pixel.png', content: b64(PNG), encoding: 'base64' },
      { filename: 'report.pdf', content: b64(Buffer.alloc(3000, 7)), encoding: 'base64' },
      { filename: 'empty.bin', content: '', encoding: 'base64' },
      { filename: 'Übersicht März.csv', content: b64('a;b\r\n1;2\r\n'), encoding: 'base64' },
    ],
  },
  'one attachment, no body': { attachments: [{ filename: 'data.json', content: b64('{"a":1}'), encoding: 'base64' }] },
  'attachment with text only': {
    text: 'Hi',
    attachments: [{ filename: 'page.html', content: b64('<p>x</p>'), encoding: 'base64' }],
  },
  'message/rfc822 attachment (sent as is)': {
    text: 'Forwarded',
    attachments: [{ filename: 'fwd.eml', content: b64('Subject: old\r\n\r\nbody\nwith LF'), encoding: 'base64' }],
  },
  'cc, reply-to and custom headers': {
    text: 'Hi',
    html: '<p>Hi</p>',
    cc: [
      { name: 'Carl', address: 'carl@rcpt.test' },
      { name: 'Dörte', address: 'doerte@rcpt.test' },
    ],
    replyTo: { name: 'Help Desk', address: 'help@sender.test' },
    headers: {
      'X-Campaign': 'spring-7',
      'X-Ünïcode': 'välue',
      'List-Unsubscribe': '<https://t.test/u>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  },
  'bodies given as UTF-8 Buffers': { text: Buffer.from('Grüße'), html: Buffer.from(`<p>${LOREM} ${LOREM}</p>`) },
};

describe('the native MIME serializer', () => {
  it.each(Object.keys(shapes))('writes exactly what MailComposer builds (%s)', async (shape) => {
    const expected = await new MailComposer(mail(shapes[shape]!)).compile().build();
    const actual = serializeMime(new MailComposer(mail(shapes[shape]!)).compile());
    expect(actual).not.toBeNull();
    // Compared as latin1 text first for a readable diff, then as bytes.
    expect(actual!.toString('latin1')).toBe(expected.toString('latin1'));
    expect(actual!.equals(expected)).toBe(true);

    const parts = serializeMimeParts(new MailComposer(mail(shapes[shape]!)).compile())!;
    const split = expected.indexOf('\r\n\r\n');
    expect(parts.head).toBe(expected.subarray(0, split).toString());
    expect(parts.body.equals(expected.subarray(split + 4))).toBe(true);
  });

  it('wraps base64 as nodemailer does, for every length around the line and group sizes', async () => {
    const { wrap, encode } = await import('nodemailer/lib/base64');
    for (let length = 0; length < 240; length++) {
      const bytes = Buffer.from(Array.from({ length }, (_, i) => (i * 37) & 0xff));
      expect(wrappedBase64(bytes).toString('latin1')).toBe(wrap(encode(bytes), 76));
    }
  });

  it('gives up on what it does not model, and build() still composes it', async () => {
    const fallbacks: Record<string, Mail> = {
      'quoted-printable': { text: `Grüße ${LOREM}`, textEncoding: 'quoted-printable' },
      stream: { text: Readable.from([Buffer.from('streamed')]) },
      'raw part': { text: 'Hi', attachments: [{ raw: 'Content-Type: text/plain\r\n\r\nraw' }] },
      'raw message': { raw: 'Subject: raw\r\n\r\nbody\r\n' },
    };
    for (const [name, options] of Object.entries(fallbacks)) {
      const root = new MailComposer(mail(options)).compile();
      expect(serializeMime(root), name).toBeNull();
      expect((await root.build()).length, name).toBeGreaterThan(0);
    }
    const windows = new MailComposer(mail({ text: 'a\nb', newline: 'windows' })).compile();
    expect(serializeMime(windows)).toBeNull();
  });
});

describe('bodies handed to MailComposer as bytes', () => {
  // compose.ts gives MailComposer the UTF-8 bytes of a body nodemailer would base64 anyway, so
  // nodemailer skips scanning it; the message must not change.
  const bodies = [
    '',
    'short plain',
    'x'.repeat(76),
    'x'.repeat(77),
    `${'a'.repeat(76)}\n${'b'.repeat(76)}`,
    'Grüße',
    'tab\there',
    'bell\u0007',
    `${'short line\n'.repeat(12000)}`,
    `<p>Hello 1</p>${'<p>Lorem ipsum dolor sit amet.</p>\n'.repeat(3000)}`,
    `${'<p>a</p>\n'.repeat(3000)}é`,
  ];
  it.each(bodies.map((b) => [`${JSON.stringify(b.slice(0, 30))}, ${b.length} chars`, b]))(
    'composes the same message (%s)',
    async (_, body) => {
      for (const key of ['text', 'html', 'amp'] as const) {
        const expected = await new MailComposer(mail({ text: 'alt', [key]: body })).compile().build();
        const actual = serializeMime(new MailComposer(mail({ text: 'alt', [key]: bodyContent(body) })).compile())!;
        expect(actual.toString('latin1')).toBe(expected.toString('latin1'));
      }
      const alone = await new MailComposer(mail({ html: body })).compile().build();
      expect(serializeMime(new MailComposer(mail({ html: bodyContent(body) })).compile())!.equals(alone)).toBe(true);
    },
  );
});
