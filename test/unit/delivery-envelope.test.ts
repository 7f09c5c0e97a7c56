import { describe, expect, it } from 'vitest';
import { envelopeRecipients } from '../../src/delivery/compose.js';
import type { MessageRecord } from '../../src/store/index.js';

const message = (fields: Partial<MessageRecord>): MessageRecord => ({
  id: '0b6a4a8e-3f7c-4d2e-9a51-2f7d1c9e8b10',
  batchId: 'b',
  accountId: 1,
  subAccountId: 1,
  to: { email: 'ann@rcpt.test', name: 'Ann' },
  cc: [{ email: 'carl@rcpt.test', name: '', customFields: {} }],
  bcc: [{ email: 'bo@rcpt.test', name: '', customFields: {} }],
  customFields: {},
  copyOf: null,
  separateCopies: true,
  status: 'queued',
  attempts: 0,
  submittedAt: 0n,
  updated: 0n,
  ipId: null,
  ipPoolId: null,
  tpspId: null,
  smtpCode: null,
  smtpDescription: '',
  ...fields,
});

describe('the envelope of one message', () => {
  it('is its own recipient alone when its copies are messages of their own, and for a copy', () => {
    expect(envelopeRecipients(message({}))).toEqual(['ann@rcpt.test']);
    const copy = message({
      to: { email: 'carl@rcpt.test', name: '' },
      bcc: [],
      copyOf: { messageId: 'x', kind: 'cc', to: { email: 'ann@rcpt.test', name: 'Ann' } },
    });
    expect(envelopeRecipients(copy)).toEqual(['carl@rcpt.test']);
  });

  it('still carries the copies of a message accepted before copies were messages of their own', () => {
    expect(envelopeRecipients(message({ separateCopies: false }))).toEqual([
      'ann@rcpt.test',
      'carl@rcpt.test',
      'bo@rcpt.test',
    ]);
  });
});
