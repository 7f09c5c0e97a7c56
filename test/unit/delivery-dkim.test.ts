import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { describe, expect, it } from 'vitest';
import { dkimBodyHash, dkimSign, relaxedBody } from '../../src/delivery/dkim.js';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const p = createPublicKey(privateKey).export({ type: 'spki', format: 'der' }).toString('base64');
const resolver = async (name: string) => {
  if (name !== 'sel._domainkey.example.com') throw Object.assign(new Error('nxdomain'), { code: 'ENOTFOUND' });
  return [[`v=DKIM1; k=rsa; p=${p}`]];
};
const key = {
  domainName: 'example.com',
  selector: 'sel',
  privateKey,
  headerFieldNames: 'From:To:Subject:Date:List-Unsubscribe:List-Unsubscribe-Post:X-Missing',
};

describe('dkimSign (checked by mailauth, an independent verifier)', () => {
  it('signs folded headers, odd whitespace and trailing blank lines so that they verify', async () => {
    const message = Buffer.from(
      [
        'From: "A  Sender"\t<a@example.com>',
        'To: b@example.org',
        'Subject: a folded',
        '\t  subject   line ',
        'List-Unsubscribe: <https://t.example/u/1>',
        'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
        '',
        'line with trailing space   ',
        'tabs\t\tand  spaces',
        '',
        '',
        '',
      ].join('\r\n'),
    );
    const signed = await dkimSign(message, key);
    const { results } = await dkimVerify(signed, { resolver });
    expect(results[0]?.status?.result).toBe('pass');
    const keys = (results[0]?.signingHeaders?.keys ?? '').toLowerCase();
    expect(keys).toContain('list-unsubscribe-post');
    expect(keys).not.toContain('x-missing');
  });

  it('fails verification when the body is changed after signing', async () => {
    const signed = await dkimSign(Buffer.from('From: a@example.com\r\nSubject: x\r\n\r\nbody\r\n'), key);
    const tampered = Buffer.from(signed.toString().replace('body', 'BODY'));
    const { results } = await dkimVerify(tampered, { resolver });
    expect(results[0]?.status?.result).not.toBe('pass'); // mailauth says 'neutral' (body hash mismatch)
  });

  it('canonicalises the body as RFC 6376 3.4.4 says', () => {
    expect(relaxedBody('')).toBe('');
    expect(relaxedBody('\r\n\r\n')).toBe('');
    expect(relaxedBody(' C \r\nD \t E\r\n\r\n\r\n')).toBe(' C\r\nD E\r\n');
  });

  it('hashes a body the same on the fast path as through the canonicalisation', () => {
    const slow = (body: string) => createHash('sha256').update(relaxedBody(body), 'latin1').digest('base64');
    const bodies = [
      '',
      '\r\n\r\n',
      'QUJD\r\nREVG\r\n',
      'QUJD\r\nREVG\r\n\r\n\r\n',
      'no final line break',
      '--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nSGk=\r\n--b--\r\n',
      'trailing space \r\nx',
      'double  space',
      'tab\there',
      'ends with a space ',
      'caf\u00e9 latin1 bytes \u00ff\r\n',
    ];
    for (const body of bodies) expect(dkimBodyHash(Buffer.from(body, 'latin1')), JSON.stringify(body)).toBe(slow(body));
  });
});
