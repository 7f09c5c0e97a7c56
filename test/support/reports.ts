/** Bounce and complaint reports for the bounce receiver's tests. */
/** A DSN (RFC 3464) as a receiving server sends it, to `to`, about `recipient`. */
export const dsn = (to: string, recipient: string, action: string, status: string, diagnostic: string) =>
  [
    'From: Mail Delivery System <MAILER-DAEMON@mx.rcpt.test>',
    `To: ${to}`,
    'Subject: Undelivered Mail Returned to Sender',
    'Message-ID: <0f8fad5b-d9cb-469f-a165-70867728950e@mx.rcpt.test>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="BOUNDARY"',
    '',
    '--BOUNDARY',
    'Content-Type: text/plain',
    '',
    'I am sorry to have to inform you that your message could not be delivered.',
    '',
    '--BOUNDARY',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.rcpt.test',
    '',
    `Final-Recipient: rfc822; ${recipient}`,
    `Action: ${action}`,
    `Status: ${status}`,
    `Diagnostic-Code: smtp; ${diagnostic}`,
    '',
    '--BOUNDARY--',
    '',
  ].join('\r\n');

/**
 * A complaint (ARF, RFC 5965) to `to` that quotes the original's headers: its `Message-ID`, and its
 * `Return-Path` when given (as the provider saw it on delivery), and names the complaining
 * recipient in `Original-Rcpt-To` when given.
 */
export const arf = (
  to: string,
  originalMessageId: string,
  { returnPath, originalRcptTo }: { returnPath?: string; originalRcptTo?: string } = {},
) =>
  [
    'From: Feedback Loop <feedback@provider.test>',
    `To: ${to}`,
    'Subject: Abuse report',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="ARF"',
    '',
    '--ARF',
    'Content-Type: text/plain',
    '',
    'This is an email abuse report.',
    '',
    '--ARF',
    'Content-Type: message/feedback-report',
    '',
    'Feedback-Type: abuse',
    'User-Agent: ProviderFBL/1.0',
    'Version: 1',
    ...(originalRcptTo ? [`Original-Rcpt-To: ${originalRcptTo}`] : []),
    '',
    '--ARF',
    'Content-Type: text/rfc822-headers',
    '',
    ...(returnPath ? [`Return-Path: <${returnPath}>`] : []),
    'From: News <news@sender.test>',
    `Message-ID: ${originalMessageId}`,
    'Subject: Hello',
    '',
    '--ARF--',
    '',
  ].join('\r\n');
