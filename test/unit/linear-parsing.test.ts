import type { ParsedMail } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { classifySmtpReply } from '../../src/bounce/classify.js';
import { quotedMessageId, readReport } from '../../src/bounce/reports.js';
import { sendRequestSchema } from '../../src/sending/request.js';
import { sendRequestOf } from '../../src/smtp/ingest.js';
import { parseUserAgent } from '../../src/tracking/user-agent.js';
import { growth, LINEAR_GROWTH_BOUND } from '../support/growth.js';

const mail = (text: string) =>
  ({ text, attachments: [], headerLines: [], headers: new Map() }) as unknown as ParsedMail;
const ID = '3f2b8c1e-7d4a-4e5b-9c6d-0a1b2c3d4e5f';

describe('reading reports from the internet', () => {
  it('reads Final-Recipient as before', () => {
    const recipient = (value: string) => {
      const read = readReport(mail(`Action: failed\nStatus: 5.1.1\nFinal-Recipient: ${value}\n`));
      return read.kind === 'failed' ? read.recipient : 'not failed';
    };
    expect(recipient('rfc822; user@example.com')).toBe('user@example.com');
    expect(recipient('rfc822;user@example.com (the user)')).toBe('user@example.com');
    expect(recipient('rfc822; not an address')).toBeUndefined();
    expect(recipient('user@example.com')).toBeUndefined();
    const folded = readReport(
      mail('Action: failed\nStatus: 5.1.1\nDiagnostic-Code: smtp; 550 5.1.1\n  user unknown\nX: y'),
    );
    expect(folded).toMatchObject({ kind: 'failed', status: '5.1.1', diagnostic: '550 5.1.1 user unknown' });
  });

  // Before: /;\s*(\S+@\S+)/ read to the end from every `;` (50,000 of them: 2.4 s).
  it('reads a report in time linear in its size', () => {
    expect(growth((n) => readReport(mail(`Action: failed\nFinal-Recipient: ${';'.repeat(n)}`)), 5_000)).toBeLessThan(
      LINEAR_GROWTH_BOUND,
    );
    expect(growth((n) => readReport(mail(`Action: failed\nStatus: 5${'\n '.repeat(n)}x`)), 10_000)).toBeLessThan(
      LINEAR_GROWTH_BOUND,
    );
    expect(growth((n) => readReport(mail(`${'Action   \n'.repeat(n)}`)), 10_000)).toBeLessThan(LINEAR_GROWTH_BOUND);
  });

  // Before: `<uuid@` repeated was read to its end from every `<` (780 KB: 12.9 s).
  it('finds the quoted Message-ID in time linear in the size of the report', () => {
    expect(quotedMessageId(Buffer.from(`From: x\r\n\r\nMessage-ID: <${ID}@sender.example>\r\n`))).toBe(ID);
    expect(growth((n) => quotedMessageId(Buffer.from(`a: b\r\n\r\n${`<${ID}@x`.repeat(n)}`)), 500)).toBeLessThan(
      LINEAR_GROWTH_BOUND,
    );
  });

  it('classifies a long reply in linear time', () => {
    expect(growth((n) => classifySmtpReply({ code: 450, text: `450 ${'rate '.repeat(n)}` }), 10_000)).toBeLessThan(
      LINEAR_GROWTH_BOUND,
    );
  });
});

describe('reading a relayed message', () => {
  it('turns headers and display names into a request in linear time', () => {
    const relayed = (n: number) =>
      ({
        from: { value: [{ address: 'a@b.example', name: `${'\u0001 '.repeat(n)}News` }] },
        to: { value: Array.from({ length: n / 10 }, (_, i) => ({ address: `r${i}@d.example`, name: `R\u0000${i}` })) },
        subject: 's',
        text: 't',
        attachments: [],
        headerLines: Array.from({ length: n / 10 }, (_, i) => ({
          key: `x-h${i}`,
          line: `X-H${i}: ${'v'.repeat(20)}\r\n  folded`,
        })),
      }) as unknown as ParsedMail;
    const small = relayed(100);
    expect(sendRequestOf(small, ['r1@d.example'])).toMatchObject({
      ok: true,
      request: { to: [{ email: 'r1@d.example', name: 'R 1' }] },
    });
    expect(growth((n) => sendRequestOf(relayed(n), ['r1@d.example']), 10_000)).toBeLessThan(LINEAR_GROWTH_BOUND);
  });
});

describe('reading a User-Agent', () => {
  it('reads a crafted header in time linear in its length', () => {
    expect(growth((n) => parseUserAgent(`x${'Version/1.1 '.repeat(n)}`), 1_000)).toBeLessThan(LINEAR_GROWTH_BOUND);
    expect(
      parseUserAgent(
        `Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15 ${'x'.repeat(1000)}`,
      ).Family,
    ).toBe('Safari');
  });
});

describe('checking a send request', () => {
  const request = (content: string) => ({
    from: { email: 'a@b.example' },
    to: [{ email: 'c@d.example' }],
    subject: 's',
    textBody: 't',
    attachments: [{ filename: 'a.bin', content }],
  });

  it('checks base64 attachments in linear time, up to the body limit', () => {
    expect(sendRequestSchema.safeParse(request('QUJD\r\nQUJD==')).success).toBe(true);
    expect(sendRequestSchema.safeParse(request('QUJD!')).success).toBe(false);
    expect(growth((n) => sendRequestSchema.safeParse(request(`${'QUJD'.repeat(n)}\r\n!`)), 50_000)).toBeLessThan(
      LINEAR_GROWTH_BOUND,
    );
  });
});
