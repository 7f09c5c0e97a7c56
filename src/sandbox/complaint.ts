/**
 * The `complaint@` recipient of the sandbox: once its message is delivered, an ARF report (RFC
 * 5965) about it is read and applied exactly as the bounce receiver does with one that arrives
 * over SMTP (src/bounce/receiver.ts), so the Spam event, counter, suppression and webhook follow.
 */
import { applyReport, type ReportOutcome, type BounceIntakeDeps } from '../bounce/inbound.js';
import { readReport } from '../bounce/reports.js';
import { parseReceivedMime } from '../smtp/server.js';

/** What this module uses of the instance: what it calls uses, {@link BounceIntakeDeps}, and nothing more. */
export type ComplaintDeps = BounceIntakeDeps;

/** The ARF report a mailbox provider would send when `recipient` marks `original` as spam. */
export function arfReport(original: Buffer, recipient: string, reportedAt: Date): Buffer {
  const boundary = `arf-${reportedAt.getTime().toString(36)}`;
  const text = [
    'From: <feedback@sandbox.mailplane.test>',
    'To: <fbl@sandbox.mailplane.test>',
    'Subject: Abuse report',
    `Date: ${reportedAt.toUTCString()}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=feedback-report; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'This is an abuse report for a message the sandbox delivered (complaint@ recipient).',
    '',
    `--${boundary}`,
    'Content-Type: message/feedback-report',
    '',
    'Feedback-Type: abuse',
    'User-Agent: mailplane-sandbox/1',
    'Version: 1',
    `Original-Rcpt-To: ${recipient}`,
    `Arrival-Date: ${reportedAt.toUTCString()}`,
    '',
    `--${boundary}`,
    'Content-Type: message/rfc822',
    '',
    '',
  ].join('\r\n');
  return Buffer.concat([Buffer.from(text), original, Buffer.from(`\r\n--${boundary}--\r\n`)]);
}

/** Reads the ARF report about `messageId` and applies it through the bounce receiver's logic. */
export async function applySandboxComplaint(
  ctx: ComplaintDeps,
  messageId: string,
  original: Buffer,
  recipient: string,
): Promise<ReportOutcome> {
  const report = readReport(await parseReceivedMime(arfReport(original, recipient, new Date(ctx.clock.now()))));
  return applyReport(ctx, messageId, report);
}
