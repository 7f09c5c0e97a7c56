import { describe, expect, it } from 'vitest';
import {
  checkSpfInclude,
  cleanTxtValue,
  expectedDkimKey,
  isValidName,
  looksLikeDmarc,
  looksLikeSpf,
  normalizeName,
  parseDkimRecord,
  parseDmarcRecord,
  parseTagList,
} from '../../src/dns/index.js';

describe('parseTagList', () => {
  it('reads tags with folding whitespace and a trailing separator', () => {
    const parsed = parseTagList(' v = DKIM1 ;k=rsa;\t p=AB CD ; ');
    expect(parsed.ok && Object.fromEntries(parsed.tags)).toEqual({ v: 'DKIM1', k: 'rsa', p: 'AB CD' });
    expect(parsed.ok && parsed.order).toEqual(['v', 'k', 'p']);
  });

  it('refuses repeated tags, bare words and bad tag names', () => {
    expect(parseTagList('p=a; p=b')).toMatchObject({ ok: false, error: expect.stringContaining('twice') });
    expect(parseTagList('v=DKIM1; hello')).toMatchObject({ ok: false });
    expect(parseTagList('1x=2')).toMatchObject({ ok: false });
  });
});

describe('cleanTxtValue', () => {
  it('undoes literal quotes and zone-file style splitting pasted into a provider form', () => {
    expect(cleanTxtValue('"v=DKIM1; p=abc"')).toBe('v=DKIM1; p=abc');
    expect(cleanTxtValue('"v=DKIM1; p=ab" "cd"')).toBe('v=DKIM1; p=abcd');
    expect(cleanTxtValue('  v=spf1 -all ')).toBe('v=spf1 -all');
  });
});

describe('DKIM records', () => {
  it('parses a key record, removing whitespace inside the key and defaulting k=rsa', () => {
    expect(parseDkimRecord('v=DKIM1; p=MIGf MA0G\nCSqG')).toEqual({
      ok: true,
      record: { keyType: 'rsa', publicKey: 'MIGfMA0GCSqG' },
    });
    expect(parseDkimRecord('k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=')).toMatchObject({
      ok: true,
      record: { keyType: 'ed25519' },
    });
  });

  it('tells a record that is not DKIM from a broken DKIM record', () => {
    expect(parseDkimRecord('google-site-verification=abc')).toMatchObject({ ok: false, notDkim: true });
    expect(parseDkimRecord('v=spf1 include:x -all')).toMatchObject({ ok: false, notDkim: true });
    expect(parseDkimRecord('k=rsa; v=DKIM1; p=abc')).toMatchObject({
      ok: false,
      notDkim: false,
      error: expect.stringContaining('first'),
    });
    expect(parseDkimRecord('v=DKIM1; k=rsa')).toMatchObject({
      ok: false,
      notDkim: false,
      error: expect.stringContaining('p='),
    });
    expect(parseDkimRecord('v=DKIM1; p=not*base64')).toMatchObject({
      ok: false,
      error: expect.stringContaining('base64'),
    });
  });

  it('reports a revoked key as an empty key', () => {
    expect(parseDkimRecord('v=DKIM1; p=')).toEqual({ ok: true, record: { keyType: 'rsa', publicKey: '' } });
  });

  it('reads the expected key from a full record or a bare key', () => {
    expect(expectedDkimKey('v=DKIM1; k=rsa; p=QUJD')).toEqual({ keyType: 'rsa', publicKey: 'QUJD' });
    expect(expectedDkimKey('QU JD')).toEqual({ keyType: 'rsa', publicKey: 'QUJD' });
    expect(expectedDkimKey('')).toBeNull();
  });
});

describe('DMARC records', () => {
  it('accepts valid records, case-insensitively where receivers are', () => {
    expect(looksLikeDmarc('v=DMARC1; p=none')).toBe(true);
    expect(looksLikeDmarc('v=dmarc1;p=reject')).toBe(true);
    expect(looksLikeDmarc('v=DMARC10; p=none')).toBe(false);
    expect(
      parseDmarcRecord(
        'v=DMARC1; p=quarantine; sp=reject; pct=50; adkim=s; aspf=r; fo=1:d; rua=mailto:dmarc@example.com!10m,mailto:x@y.z',
      ),
    ).toEqual({
      ok: true,
      record: {
        policy: 'quarantine',
        subdomainPolicy: 'reject',
        percent: 50,
        reportUris: ['mailto:dmarc@example.com!10m', 'mailto:x@y.z'],
      },
    });
    expect(parseDmarcRecord('v=DMARC1; p=none; future=tag')).toMatchObject({ ok: true });
  });

  it('explains what is wrong with an invalid record', () => {
    expect(parseDmarcRecord('p=none; v=DMARC1')).toMatchObject({
      ok: false,
      error: expect.stringContaining('start with v=DMARC1'),
    });
    expect(parseDmarcRecord('v=DMARC1; rua=mailto:a@b.c')).toMatchObject({
      ok: false,
      error: expect.stringContaining('no p='),
    });
    expect(parseDmarcRecord('v=DMARC1; p=block')).toMatchObject({
      ok: false,
      error: expect.stringContaining('p=block'),
    });
    expect(parseDmarcRecord('v=DMARC1; p=none; pct=150')).toMatchObject({
      ok: false,
      error: expect.stringContaining('pct=150'),
    });
    expect(parseDmarcRecord('v=DMARC1; p=none; adkim=x')).toMatchObject({
      ok: false,
      error: expect.stringContaining('adkim'),
    });
    expect(parseDmarcRecord('v=DMARC1; p=none; rua=dmarc@example.com')).toMatchObject({
      ok: false,
      error: expect.stringContaining('mailto:'),
    });
    expect(parseDmarcRecord('v=DMARC1; p=none; p=reject')).toMatchObject({
      ok: false,
      error: expect.stringContaining('twice'),
    });
  });
});

describe('SPF records', () => {
  it('recognises SPF records exactly', () => {
    expect(looksLikeSpf('v=spf1 -all')).toBe(true);
    expect(looksLikeSpf('V=SPF1')).toBe(true);
    expect(looksLikeSpf('v=spf10 -all')).toBe(false);
  });

  it('finds the include, with or without +, before all', () => {
    expect(checkSpfInclude('v=spf1 include:spf.mp.test ~all', 'spf.mp.test')).toEqual({ ok: true });
    expect(checkSpfInclude('v=spf1 a mx +include:SPF.MP.TEST. -all', 'spf.mp.test')).toEqual({ ok: true });
    expect(checkSpfInclude('v=spf1 redirect=spf.mp.test', 'spf.mp.test')).toEqual({ ok: true });
  });

  it('explains a missing, unreachable, qualified or too expensive include', () => {
    expect(checkSpfInclude('v=spf1 include:other.test -all', 'spf.mp.test')).toMatchObject({
      ok: false,
      error: expect.stringContaining('add include:spf.mp.test'),
    });
    expect(checkSpfInclude('v=spf1 -all include:spf.mp.test', 'spf.mp.test')).toMatchObject({
      ok: false,
      error: expect.stringContaining('after -all'),
    });
    expect(checkSpfInclude('v=spf1 ~include:spf.mp.test -all', 'spf.mp.test')).toMatchObject({
      ok: false,
      error: expect.stringContaining('qualifier'),
    });
    const many = Array.from({ length: 11 }, (_, i) => `include:s${i}.test`).join(' ');
    expect(checkSpfInclude(`v=spf1 include:spf.mp.test ${many} -all`, 'spf.mp.test')).toMatchObject({
      ok: false,
      error: expect.stringContaining('12 DNS lookups'),
    });
  });
});

describe('names', () => {
  it('normalises case, the trailing dot and internationalised names', () => {
    expect(normalizeName('MP1._DomainKey.Example.COM.')).toBe('mp1._domainkey.example.com');
    expect(normalizeName('bücher.example')).toBe('xn--bcher-kva.example');
  });

  it('refuses names that cannot be queried', () => {
    expect(isValidName('_dmarc.example.com')).toBe(true);
    for (const bad of ['', 'a..b', '-a.example', 'a b.example', `${'a'.repeat(64)}.example`, `${'a.'.repeat(127)}a`]) {
      expect(isValidName(normalizeName(bad)), bad).toBe(false);
    }
  });
});
