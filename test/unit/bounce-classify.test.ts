import { describe, expect, it } from 'vitest';
import { classifySmtpReply, parseEnhancedCode } from '../../src/bounce/classify.js';
import { describeReply } from '../../src/delivery/outcome.js';

const kindOf = (code: number | null, text: string) => classifySmtpReply({ code, text }).kind;

describe('classifySmtpReply', () => {
  it('2xx is delivered; no reply at all is soft', () => {
    expect(kindOf(250, '250 2.0.0 Ok: queued as 12345')).toBe('delivered');
    expect(kindOf(null, 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:25')).toBe('soft');
  });

  it('4xx is soft; 4.7.x and rate-limit texts are flagged as policy', () => {
    expect(classifySmtpReply({ code: 451, text: '451 4.3.0 Temporary failure' })).toEqual({
      kind: 'soft',
      smtpCode: 451,
      enhancedCode: '4.3.0',
      text: '451 4.3.0 Temporary failure',
    });
    expect(classifySmtpReply({ code: 421, text: '421 4.7.0 Try again later' }).policy).toBe(true);
    expect(classifySmtpReply({ code: 450, text: '450 Too many connections from your IP' }).policy).toBe(true);
    expect(classifySmtpReply({ code: 452, text: '452 4.2.2 Mailbox full' }).policy).toBeUndefined();
  });

  it('5xx with an enhanced code: 5.7.x is a drop unless the mailbox is unknown, 5.2.2 is soft, others hard', () => {
    expect(kindOf(550, '550 5.1.1 <a@b.c>: Recipient address rejected: User unknown')).toBe('hard');
    expect(kindOf(554, '554 5.7.1 Service unavailable; client host blocked using zen.spamhaus.org')).toBe('dropped');
    expect(kindOf(550, '550 5.7.1 Relay access denied')).toBe('dropped');
    expect(kindOf(550, '550 5.7.1 No such user here')).toBe('hard');
    expect(kindOf(552, '552 5.2.2 Mailbox full')).toBe('soft');
    expect(kindOf(553, '553 5.1.3 Bad recipient address syntax')).toBe('hard');
  });

  it('5xx without an enhanced code: policy words make a drop, anything else is hard', () => {
    expect(kindOf(550, '550 No such user here')).toBe('hard');
    expect(kindOf(554, '554 Message rejected as spam')).toBe('dropped');
    expect(kindOf(550, '550 Your IP is on a blacklist')).toBe('dropped');
    expect(kindOf(550, '550 Requested action not taken: mailbox unavailable')).toBe('hard');
  });

  it('anything outside 2xx, 4xx, 5xx is soft (a 3xx where a final reply was due, garbage)', () => {
    expect(kindOf(354, '354 go ahead')).toBe('soft');
    expect(kindOf(999, 'garbage')).toBe('soft');
    expect(kindOf(Number.NaN, 'garbage')).toBe('soft');
  });
});

describe('parseEnhancedCode', () => {
  it('reads the code after the basic code, on multi-line replies too, and only when the classes agree', () => {
    expect(parseEnhancedCode('550 5.1.1 user unknown', 550)).toBe('5.1.1');
    expect(parseEnhancedCode('550-5.1.1 first\n550 5.1.1 second', 550)).toBe('5.1.1');
    expect(parseEnhancedCode('550 4.1.1 mismatch', 550)).toBeUndefined();
    expect(parseEnhancedCode('550 user unknown', 550)).toBeUndefined();
    expect(parseEnhancedCode('451 4.7.001 padded', 451)).toBe('4.7.1');
  });
});

describe('describeReply', () => {
  it('keeps every line of a reply on one line, names the host, and removes control characters', () => {
    expect(describeReply({ kind: 'hard', smtpCode: 550, text: '550-5.1.1 a\r\n550 5.1.1 b', host: 'mx.example' })).toBe(
      '550-5.1.1 a 550 5.1.1 b (mx.example)',
    );
    expect(describeReply({ kind: 'soft', smtpCode: null, text: 'EPROTOCOL: \u0000\u00ff junk' })).toBe(
      'EPROTOCOL: ?\u00ff junk',
    );
    expect(describeReply({ kind: 'soft', smtpCode: 421, text: 'shutting down' })).toBe('421 shutting down');
  });
});
