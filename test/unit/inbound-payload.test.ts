/** The webhook payload of a received message (src/inbound/payload.ts), from messages parsed by mailparser. */
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { inboundPayload, MAX_PAYLOAD_HEADER_VALUE, MAX_PAYLOAD_HEADERS } from '../../src/inbound/payload.js';
import type { InboundMessageRecord } from '../../src/store/inbound-store.js';

const record: InboundMessageRecord = {
  id: '0190f3a2-6c1e-7b2d-8f00-0000000000aa',
  accountId: 1,
  subAccountId: 2,
  routeId: 3,
  receivedAt: 1_777_636_800_000_000_000n,
  mailFrom: 'bounce@remote.test',
  rcptTo: 'support@acme.test',
  from: 'alice@remote.test',
  subject: 'Hi',
  messageIdHeader: 'm1@remote.test',
  inReplyToMessageId: null,
  size: 0,
  raw: null,
  auth: { spf: 'pass', dkim: 'none', dmarc: 'fail', arc: 'none' },
  status: 'pending',
  detail: '',
  updated: 0n,
};

const raw = Buffer.from(
  [
    'From: "Alice A." <alice@remote.test>',
    'To: support@acme.test, Team: bob@acme.test, carol@acme.test;',
    'Reply-To: <alice+r@remote.test>',
    'Subject: Hi',
    'Message-ID: <m1@remote.test>',
    'In-Reply-To: <0190f3a2-6c1e-7b2d-8f00-0000000000bb@acme.test>',
    'References: <r1@remote.test>',
    '  <r2@remote.test>',
    'X-Long: ' + 'v'.repeat(MAX_PAYLOAD_HEADER_VALUE + 10),
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b"',
    '',
    '--b',
    'Content-Type: text/plain',
    '',
    'hello',
    '--b',
    'Content-Type: application/pdf; name="a.pdf"',
    'Content-Disposition: attachment; filename="a.pdf"',
    'Content-ID: <pdf1@remote.test>',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('0123456789').toString('base64'),
    '--b',
    'Content-Type: application/octet-stream; name="big.bin"',
    'Content-Disposition: attachment; filename="big.bin"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.alloc(40, 1).toString('base64'),
    '--b--',
    '',
  ].join('\r\n'),
);

describe('inboundPayload', () => {
  it('carries the envelope, the address headers flattened, the ids without brackets, and bounded headers', async () => {
    const payload = inboundPayload(record, await simpleParser(raw), raw, {
      inlineAttachmentBytes: 20,
      attachmentUrl: (index) => `https://links.test/${index}`,
    });
    expect(payload).toMatchObject({
      type: 'inbound.received',
      id: record.id,
      receivedAt: '2026-05-01T12:00:00.000Z',
      routeId: 3,
      envelope: { mailFrom: 'bounce@remote.test', rcptTo: 'support@acme.test' },
      from: [{ address: 'alice@remote.test', name: 'Alice A.' }],
      to: [
        { address: 'support@acme.test', name: '' },
        { address: 'bob@acme.test', name: '' },
        { address: 'carol@acme.test', name: '' },
      ],
      replyTo: [{ address: 'alice+r@remote.test', name: '' }],
      cc: [],
      subject: 'Hi',
      messageId: 'm1@remote.test',
      inReplyTo: '0190f3a2-6c1e-7b2d-8f00-0000000000bb@acme.test',
      references: ['r1@remote.test', 'r2@remote.test'],
      text: 'hello',
      html: null,
      auth: record.auth,
      malformed: false,
    });
    expect(payload.headers).toContainEqual(['References', '<r1@remote.test> <r2@remote.test>']);
    const long = payload.headers.find(([name]) => name === 'X-Long')!;
    expect(long[1]).toHaveLength(MAX_PAYLOAD_HEADER_VALUE);
    expect(payload.attachments).toEqual([
      {
        filename: 'a.pdf',
        contentType: 'application/pdf',
        size: 10,
        contentId: 'pdf1@remote.test',
        content: 'MDEyMzQ1Njc4OQ==',
      },
      {
        filename: 'big.bin',
        contentType: 'application/octet-stream',
        size: 40,
        contentId: '',
        url: 'https://links.test/1',
      },
    ]);
  });

  it(`keeps ${MAX_PAYLOAD_HEADERS} headers at most`, async () => {
    const many = Buffer.from(`${Array.from({ length: 300 }, (_, i) => `X-N${i}: ${i}`).join('\r\n')}\r\n\r\nbody`);
    const payload = inboundPayload(record, await simpleParser(many), many, {
      inlineAttachmentBytes: 0,
      attachmentUrl: () => null,
    });
    expect(payload.headers).toHaveLength(MAX_PAYLOAD_HEADERS);
    expect(payload.headers[0]).toEqual(['X-N0', '0']);
  });

  it('carries a message whose MIME could not be read as its raw text, marked malformed', () => {
    const payload = inboundPayload(record, null, Buffer.from('Subject: x\r\n\r\nbroken'), {
      inlineAttachmentBytes: 0,
      attachmentUrl: () => null,
    });
    expect(payload).toMatchObject({ malformed: true, text: 'Subject: x\r\n\r\nbroken', headers: [], attachments: [] });
  });
});
