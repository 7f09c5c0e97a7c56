/**
 * fast-check arbitraries of hostile mail, as bytes on the wire: MIME trees with odd charsets and
 * transfer encodings (broken base64 and quoted-printable, raw 8-bit bytes), boundaries missing or
 * unclosed, encoded words and folded, endless or control-laden headers, tag soup for HTML, and
 * delivery-status and feedback reports whose fields are garbage. For the SMTP relay and the bounce
 * receiver (test/integration/smtp-fuzz.test.ts).
 */
import fc from 'fast-check';
import { nastyString } from './fuzz-values.js';

/** One piece of a message: text (written as UTF-8) or bytes exactly as given. */
type Piece = string | Uint8Array;

const CHARSETS = [
  'utf-8',
  'UTF-8',
  'us-ascii',
  'iso-8859-1',
  'windows-1252',
  'iso-2022-jp',
  'utf-7',
  'utf-16',
  'gb2312',
  'koi8-r',
  'x-unknown',
  '',
  '"utf-8',
  'utf-8; format=flowed',
];
const TRANSFER_ENCODINGS = [
  '7bit',
  '8bit',
  'binary',
  'base64',
  'BASE64',
  'quoted-printable',
  'x-uuencode',
  'bogus',
  '',
];
const LEAF_TYPES = [
  'text/plain',
  'text/html',
  'text/calendar',
  'application/octet-stream',
  'image/png',
  'message/rfc822',
  'message/delivery-status',
  'text/rfc822-headers',
  'x/y',
  '',
];
const MULTIPART_TYPES = ['mixed', 'alternative', 'related', 'report', 'signed', 'digest', 'x-unknown'];

/** Strings a header or a body may hold: hostile ones, kept under 20,000 characters so a run stays quick. */
const text = fc.oneof(
  { weight: 3, arbitrary: nastyString.map((s) => s.slice(0, 20_000)) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 200 }) },
);

/** Tag soup: the pieces HTML rewriting and templating look for, in any order and number. */
const html = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '<a href="',
        'https://x.test/p?q=1&r=2',
        '">',
        '</a>',
        '<a ',
        '<body',
        '<body>',
        '</body>',
        '<html>',
        '<head>',
        '<img src=',
        '<!--',
        '-->',
        '<![CDATA[',
        ']]>',
      ),
      fc.constantFrom(
        '{{',
        '}}',
        '{{name}}',
        '{{#each x}}',
        '{{/each}}',
        '{{> p}}',
        '&amp;',
        '&#x1F600;',
        '&#99999999;',
        '<style>',
        '</style>',
        '<script>',
        '"',
        "'",
        '=',
        '<',
        '>',
      ),
      text,
    ),
    { maxLength: 60 },
  )
  .map((parts) => parts.join(''));

/** Bytes of any value, as raw 8-bit content or as the payload of an encoding. */
const bytes = fc.uint8Array({ maxLength: 3_000 });

/** An RFC 2047 encoded word, well formed or not. */
const encodedWord = fc
  .tuple(
    fc.constantFrom(...CHARSETS, 'utf-8*en'),
    fc.constantFrom('B', 'Q', 'b', 'q', 'X', ''),
    fc.oneof(
      bytes.map((b) => Buffer.from(b).toString('base64')),
      text,
    ),
  )
  .map(([charset, encoding, payload]) => `=?${charset}?${encoding}?${payload}?=`);

/** An address list: ordinary, quoted, grouped, commented, empty, or very long. */
const addressList = fc.oneof(
  fc.constantFrom(
    'ann@rcpt.test',
    '"Ann, B." <ann@rcpt.test>',
    'undisclosed-recipients:;',
    '<>',
    '(a(b(c)d)e) ann@rcpt.test',
    'a@',
    '@b',
    '"unterminated <x@y.test>',
    'x@[127.0.0.1]',
  ),
  fc.array(fc.emailAddress(), { minLength: 1, maxLength: 300 }).map((all) => all.join(', ')),
  text,
  encodedWord.map((word) => `${word} <ann@rcpt.test>`),
);

/** A header value: hostile text, encoded words, folded lines, or one very long line. */
const headerValue = fc.oneof(
  text,
  encodedWord,
  fc.array(encodedWord, { maxLength: 5 }).map((words) => words.join(' ')),
  fc.tuple(text, text).map(([a, b]) => `${a}\r\n ${b}`),
  fc.constantFrom(1_000, 10_000, 200_000).map((n) => 'v'.repeat(n)),
);

/** Headers besides the ones every message gets: mailplane's controls, ordinary ones, and any name. */
const extraHeader = fc.tuple(
  fc.oneof(
    fc.constantFrom(
      'X-Mailplane-Groups',
      'X-Mailplane-Track',
      'X-Mailplane-IPPool',
      'X-Mailplane-Idempotency-Key',
      'X-Tenant',
      'Reply-To',
      'Cc',
      'Bcc',
      'Subject',
    ),
    fc.constantFrom(
      'Message-ID',
      'Date',
      'MIME-Version',
      'Content-Type',
      'Content-Transfer-Encoding',
      'List-Unsubscribe',
      'DKIM-Signature',
      'Received',
      'Return-Path',
    ),
    fc.stringMatching(/^[!-9;-~]{1,40}$/),
  ),
  headerValue,
);

/** A MIME part's own headers and body. */
interface Leaf {
  kind: 'leaf';
  type: string;
  charset: string;
  encoding: string;
  disposition: string | null;
  body: Piece;
}
interface Multipart {
  kind: 'multipart';
  subtype: string;
  boundary: string;
  parts: Part[];
  closed: boolean;
  preamble: string;
}
type Part = Leaf | Multipart;

/** A body as its encoding would write it, or broken: base64 with junk, quoted-printable with bad escapes. */
const leafBody = fc.oneof(
  text,
  html,
  bytes,
  bytes.map((b) =>
    Buffer.from(b)
      .toString('base64')
      .replace(/(.{76})/g, '$1\r\n'),
  ),
  fc
    .tuple(bytes, fc.constantFrom('!!', '=', '====', '\r\n\r\n', '\u0000'))
    .map(([b, junk]) => Buffer.from(b).toString('base64').slice(0, 50) + junk),
  fc.constantFrom('=ZZ=\r\n=', 'soft=\r\nbreak=', '=E2=82', '=\r\n'.repeat(500), '='.repeat(5_000)),
);

const leaf: fc.Arbitrary<Leaf> = fc.record({
  kind: fc.constant('leaf' as const),
  type: fc.constantFrom(...LEAF_TYPES),
  charset: fc.constantFrom(...CHARSETS),
  encoding: fc.constantFrom(...TRANSFER_ENCODINGS),
  disposition: fc.option(
    fc.oneof(
      fc.constantFrom(
        'attachment; filename="a.txt"',
        'inline',
        "attachment; filename*=utf-8''%E2%82%AC.pdf",
        'attachment',
      ),
      headerValue.map((v) => `attachment; filename="${v}"`),
    ),
  ),
  body: leafBody,
});

/** A MIME tree at most three levels deep. */
const { part } = fc.letrec<{ part: Part; multipart: Multipart }>((tie) => ({
  part: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('multipart')),
  multipart: fc.record({
    kind: fc.constant('multipart' as const),
    subtype: fc.constantFrom(...MULTIPART_TYPES),
    boundary: fc.oneof(
      fc.constantFrom('b1', 'B', '', '=_x', 'a b', '--', '"q"'),
      fc.stringMatching(/^[0-9A-Za-z'()+_,./:=?-]{1,70}$/),
      fc.constant('x'.repeat(500)),
    ),
    parts: fc.array(tie('part'), { maxLength: 4 }),
    closed: fc.boolean(),
    preamble: fc.oneof(fc.constant(''), text),
  }),
}));

/** The pieces of a part: its headers, a blank line, and its body (a multipart's children between boundaries). */
function partPieces(node: Part): Piece[] {
  if (node.kind === 'leaf') {
    const type =
      node.type === '' ? '' : `Content-Type: ${node.type}${node.charset === '' ? '' : `; charset=${node.charset}`}\r\n`;
    const encoding = node.encoding === '' ? '' : `Content-Transfer-Encoding: ${node.encoding}\r\n`;
    const disposition = node.disposition === null ? '' : `Content-Disposition: ${node.disposition}\r\n`;
    return [type, encoding, disposition, '\r\n', node.body];
  }
  const pieces: Piece[] = [
    `Content-Type: multipart/${node.subtype}; boundary="${node.boundary}"\r\n`,
    '\r\n',
    node.preamble,
    '\r\n',
  ];
  for (const child of node.parts) pieces.push(`--${node.boundary}\r\n`, ...partPieces(child), '\r\n');
  if (node.closed) pieces.push(`--${node.boundary}--\r\n`);
  return pieces;
}

/** Joins pieces into the bytes sent, then maybe damages them: bare LF line ends, cut short, or a NUL inside. */
const damage = fc.constantFrom('none', 'none', 'none', 'none', 'none', 'none', 'bare-lf', 'truncate', 'nul');
/** Where damage goes, as a share of the length: unbiased, so not mostly at either end. */
const share = fc.noBias(fc.integer({ min: 0, max: 1_000 })).map((permille) => permille / 1_000);
function serialize(pieces: Piece[], how: string, at: number): Buffer {
  let raw = Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));
  if (how === 'bare-lf') raw = Buffer.from(raw.toString('latin1').replace(/\r\n/g, '\n'), 'latin1');
  if (how === 'truncate') raw = raw.subarray(0, Math.floor(raw.length * at));
  if (how === 'nul')
    raw = Buffer.concat([
      raw.subarray(0, Math.floor(raw.length * at)),
      Buffer.from([0]),
      raw.subarray(Math.floor(raw.length * at)),
    ]);
  return shownShort(raw);
}

/** Hostile bytes described in a line: their length and how they begin (a message can be megabytes). */
export function describeBytes(raw: Buffer): string {
  return `${raw.length} bytes beginning ${JSON.stringify(raw.subarray(0, 300).toString('latin1'))}`;
}

/** Makes fast-check show a counterexample by {@link describeBytes}; its seed and path replay it exactly. */
function shownShort(raw: Buffer): Buffer {
  Object.defineProperty(raw, fc.toStringMethod, { value: () => describeBytes(raw) });
  return raw;
}

/**
 * Whole messages from `from` (most of them; else a hostile From): mostly a From that passes the
 * relay's sender check, so most reach the send pipeline and then delivery.
 */
export function hostileMessage(from: string): fc.Arbitrary<Buffer> {
  return fc
    .record({
      from: fc.oneof(
        {
          weight: 5,
          arbitrary: fc.constantFrom(
            from,
            `"Näme, Ü" <${from}>`,
            `=?utf-8?B?${Buffer.from('Grüße').toString('base64')}?= <${from}>`,
          ),
        },
        { weight: 1, arbitrary: addressList },
      ),
      to: addressList,
      subject: headerValue,
      extra: fc.array(extraHeader, { maxLength: 8 }),
      body: part,
      damage,
      at: share,
    })
    .map(({ from: fromValue, to, subject, extra, body, damage: how, at }) => {
      const headers = [
        `From: ${fromValue}\r\n`,
        `To: ${to}\r\n`,
        `Subject: ${subject}\r\n`,
        'MIME-Version: 1.0\r\n',
        ...extra.map(([name, value]) => `${name}: ${value}\r\n`),
      ];
      return serialize([...headers, ...partPieces(body)], how, at);
    });
}

/** Report fields (RFC 3464 delivery status, RFC 5965 feedback) with real names and hostile values. */
const reportField = fc.tuple(
  fc.constantFrom(
    'Action',
    'Status',
    'Final-Recipient',
    'Original-Recipient',
    'Diagnostic-Code',
    'Reporting-MTA',
    'Remote-MTA',
    'Feedback-Type',
    'User-Agent',
    'Version',
    'Original-Mail-From',
    'Arrival-Date',
    'Will-Retry-Until',
  ),
  fc.oneof(
    fc.constantFrom(
      'failed',
      'delayed',
      'delivered',
      'relayed',
      'expanded',
      '5.1.1',
      '4.4.7',
      '9.9.9',
      '5.',
      'rfc822; gone@rcpt.test',
      'rfc822;',
      ';'.repeat(5_000),
      'smtp; 550 5.1.1 <gone@rcpt.test>: User unknown',
      'abuse',
      'fraud',
      'not-spam',
      '1',
    ),
    text,
  ),
);

/**
 * Delivery-status and feedback reports, well formed or not, quoting `messageIds` (the ids of real
 * messages, so that some reports apply to one) or garbage.
 */
export function hostileReport(messageIds: readonly string[], domain: string): fc.Arbitrary<Buffer> {
  const quoted = fc.oneof(
    fc.constantFrom(...messageIds).map((id) => `Message-ID: <${id}@${domain}>\r\n`),
    headerValue.map((v) => `Message-ID: ${v}\r\n`),
    fc.constant(''),
  );
  return fc
    .record({
      reportType: fc.constantFrom('delivery-status', 'feedback-report', 'disposition-notification', 'x', ''),
      statusType: fc.constantFrom(
        'message/delivery-status',
        'message/feedback-report',
        'message/global-delivery-status',
        'text/plain',
      ),
      fields: fc.array(fc.array(reportField, { maxLength: 8 }), { maxLength: 4 }),
      quoted,
      original: fc.constantFrom('message/rfc822', 'text/rfc822-headers', 'message/global-headers'),
      human: text,
      damage,
      at: share,
    })
    .map(({ reportType, statusType, fields, quoted: quotedHeader, original, human, damage: how, at }) => {
      const groups = fields.map((group) => group.map(([name, value]) => `${name}: ${value}\r\n`).join('')).join('\r\n');
      const pieces = [
        'From: MAILER-DAEMON@mx.rcpt.test\r\n',
        'MIME-Version: 1.0\r\n',
        `Content-Type: multipart/report; report-type=${reportType}; boundary="R"\r\n`,
        '\r\n--R\r\n',
        `Content-Type: text/plain\r\n\r\n${human}\r\n`,
        `--R\r\nContent-Type: ${statusType}\r\n\r\n${groups}\r\n`,
        `--R\r\nContent-Type: ${original}\r\n\r\n${quotedHeader}Subject: x\r\n\r\n`,
        '--R--\r\n',
      ];
      return serialize(pieces, how, at);
    });
}
