/**
 * Two of the dashboard's rules without a browser (src/dashboard/ui/format.ts): how an event's SMTP
 * reply reads (never "null" when there was none) and which sub-account a page starts on.
 */
import { describe, expect, it } from 'vitest';
import { smtpReplyText, startSubAccount } from '../../src/dashboard/ui/format.js';

describe('smtpReplyText', () => {
  it('names the code once, and a failure without a reply by its reason', () => {
    expect(smtpReplyText(250, '250 2.0.0 Ok: queued')).toBe('SMTP reply: 250 2.0.0 Ok: queued');
    expect(smtpReplyText(550, '5.1.1 no such user')).toBe('SMTP reply: 550 5.1.1 no such user');
    expect(smtpReplyText(421, undefined)).toBe('SMTP reply: 421');
    expect(smtpReplyText(null, 'ECONNECTION: Connection closed unexpectedly')).toBe(
      'Reason: ECONNECTION: Connection closed unexpectedly',
    );
    expect(smtpReplyText(0, 'suppressed')).toBe('Reason: suppressed');
    expect(smtpReplyText(null, null)).toBeUndefined();
    expect(smtpReplyText(undefined, '  ')).toBeUndefined();
  });
});

describe('startSubAccount', () => {
  const subs = [
    { id: 1, created: 100 },
    { id: 2, created: 300 },
    { id: 3, created: 200 },
  ];
  it('keeps the remembered choice while it exists', () => {
    expect(startSubAccount(subs, 3, 1)).toBe(3);
  });
  it('else starts on the sub-account with the most recent mail', () => {
    expect(startSubAccount(subs, 9, 1)).toBe(1);
    expect(startSubAccount(subs, undefined, 3)).toBe(3);
  });
  it('else on the newest sub-account, and on none when there are none', () => {
    expect(startSubAccount(subs, undefined, undefined)).toBe(2);
    expect(startSubAccount(subs, undefined, 42)).toBe(2);
    expect(startSubAccount([], 1, 1)).toBeUndefined();
  });
});
