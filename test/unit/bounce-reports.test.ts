import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { quotedMessageId, readReport } from '../../src/bounce/reports.js';

const ID = '3f2b8c1e-7d4a-4e5b-9c6d-0a1b2c3d4e5f';
const report = (type: string, part: string, extra = '') =>
  Buffer.from(
    [
      'From: MAILER-DAEMON@mx.example',
      'Message-ID: <aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee@mx.example>',
      `Content-Type: multipart/report; report-type=${type}; boundary="B"`,
      '',
      '--B',
      'Content-Type: text/plain',
      '',
      'Human readable part.',
      '--B',
      `Content-Type: message/${type === 'feedback-report' ? 'feedback-report' : 'delivery-status'}`,
      '',
      part,
      '--B',
      'Content-Type: text/rfc822-headers',
      '',
      `Return-Path: <b+${ID}@mp-bounces.sender.example>`,
      extra,
      '--B--',
      '',
    ].join('\r\n'),
  );

describe('reading reports', () => {
  it('reads a failed DSN: status, the server reply without its type, the recipient', async () => {
    const raw = report(
      'delivery-status',
      'Reporting-MTA: dns; mx.example\r\n\r\nFinal-Recipient: rfc822; ann@example.org\r\nAction: failed\r\nStatus: 5.2.2\r\nDiagnostic-Code: smtp; 552 5.2.2 Mailbox full\r\n',
    );
    expect(readReport(await simpleParser(raw))).toEqual({
      kind: 'failed',
      status: '5.2.2',
      diagnostic: '552 5.2.2 Mailbox full',
      recipient: 'ann@example.org',
    });
    expect(quotedMessageId(raw)).toBe(ID);
  });

  it('reads a failure without a diagnostic, and ignores delayed and delivered notices', async () => {
    const bare = report(
      'delivery-status',
      'Final-Recipient: rfc822; ann@example.org\r\nAction: Failed\r\nStatus: 5.1.1\r\n',
    );
    expect(readReport(await simpleParser(bare))).toMatchObject({
      kind: 'failed',
      status: '5.1.1',
      diagnostic: 'Status: 5.1.1',
    });
    for (const action of ['delayed', 'delivered', 'relayed']) {
      expect(
        readReport(await simpleParser(report('delivery-status', `Action: ${action}\r\nStatus: 4.4.7\r\n`))),
      ).toEqual({ kind: 'other', why: `action ${action}` });
    }
  });

  it('reads an abuse report and names what is not one', async () => {
    expect(readReport(await simpleParser(report('feedback-report', 'Feedback-Type: abuse\r\nVersion: 1\r\n')))).toEqual(
      { kind: 'complaint', feedbackType: 'abuse' },
    );
    // Original-Rcpt-To names the complaining recipient (a cc or bcc copy shares the Message-ID); kept only when it is an address.
    expect(
      readReport(
        await simpleParser(report('feedback-report', 'Feedback-Type: abuse\r\nOriginal-Rcpt-To: <Carl@rcpt.test>\r\n')),
      ),
    ).toEqual({ kind: 'complaint', feedbackType: 'abuse', recipient: 'Carl@rcpt.test' });
    expect(
      readReport(
        await simpleParser(report('feedback-report', 'Feedback-Type: abuse\r\nOriginal-Rcpt-To: lit@[127.0.0.1]\r\n')),
      ),
    ).toEqual({ kind: 'complaint', feedbackType: 'abuse' });
    expect(readReport(await simpleParser(report('feedback-report', 'Feedback-Type: not-spam\r\n')))).toEqual({
      kind: 'other',
      why: 'feedback type not-spam',
    });
    expect(readReport(await simpleParser(Buffer.from('Subject: out of office\r\n\r\nI am away.\r\n')))).toEqual({
      kind: 'other',
      why: 'not a delivery status notification',
    });
  });

  it("finds the original message by its VERP address or Message-ID, never by the report's own Message-ID", () => {
    const byMessageId = Buffer.from(
      `Message-ID: <aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee@mx.example>\r\n\r\nMessage-ID: <${ID.toUpperCase()}@sender.example>\r\n`,
    );
    expect(quotedMessageId(byMessageId)).toBe(ID);
    expect(
      quotedMessageId(
        Buffer.from('Message-ID: <aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee@mx.example>\r\n\r\nno original quoted\r\n'),
      ),
    ).toBeNull();
  });
});
