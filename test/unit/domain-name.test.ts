import { describe, expect, it } from 'vitest';
import { DOMAIN_NAME_PATTERN, normaliseDomainName, searchTextForDomains } from '../../src/domain/name.js';

const SPEC_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9](?:\.[a-zA-Z]{2,})+$/;
const name = (raw: string) => {
  const result = normaliseDomainName(raw);
  return result.ok ? result.name : null;
};

describe('normaliseDomainName', () => {
  it('trims, lower-cases and strips one trailing dot', () => {
    expect(name('  Example.COM ')).toBe('example.com');
    expect(name('example.com.')).toBe('example.com');
    expect(name('\tMAIL.Example.com.\n')).toBe('mail.example.com');
    expect(name('example.com..')).toBeNull();
    expect(name('.example.com')).toBeNull();
  });

  it('converts Unicode names to punycode, TLDs included', () => {
    expect(name('пример.рф')).toBe('xn--e1afmkfd.xn--p1ai');
    expect(name('ПРИМЕР.РФ.')).toBe('xn--e1afmkfd.xn--p1ai');
    expect(name('Bücher.de')).toBe('xn--bcher-kva.de');
    expect(name('mail.bücher.de')).toBe('mail.xn--bcher-kva.de');
    expect(name('例え.テスト')).toBe('xn--r8jz45g.xn--zckzah');
    // full-width letters and the ideographic full stop are mapped by UTS #46
    expect(name('ＥＸＡＭＰＬＥ。com')).toBe('example.com');
    // already-punycode input is kept, and bad punycode is refused
    expect(name('xn--e1afmkfd.xn--p1ai')).toBe('xn--e1afmkfd.xn--p1ai');
    expect(name('xn--zz.com')).toBeNull();
  });

  it('accepts subdomains, hyphens and digits in any label but the TLD', () => {
    for (const ok of [
      'mail.example.com',
      'em-1.news.my-shop.co.uk',
      '42.example.com',
      'example.co',
      'ab.io',
      'a1.b2.example.travel',
    ]) {
      expect(name(ok), ok).toBe(ok);
    }
  });

  it('refuses what the spec pattern refuses and what DNS cannot carry', () => {
    for (const bad of [
      'localhost',
      'x.com', // the spec's first label has at least two characters
      'mail.x.com',
      '-ab.com',
      'ab-.com',
      'ab.c',
      'ab.c0m',
      'ab.123',
      '1.2.3.4',
      'ab..com',
      'a_b.com',
      'ab.com-',
      `${'a'.repeat(64)}.com`,
      '',
      '   ',
      '.',
      'xn--.com',
    ]) {
      expect(name(bad), bad).toBeNull();
    }
  });

  it('refuses URL syntax instead of letting IDN conversion cut it off', () => {
    for (const bad of [
      'example.com/evil',
      'example.com?x=1',
      'example.com#x',
      'example.com:25',
      'user@example.com',
      'ex%61mple.com',
      'ex ample.com',
      'example.com\u0000',
      '[::1]',
      'http://example.com',
      'example.com\\x',
    ]) {
      expect(name(bad), bad).toBeNull();
    }
  });

  it('limits the stored form to 253 characters', () => {
    const label = 'a'.repeat(63);
    const at253 = `${label}.${label}.${label}.${'b'.repeat(57)}.com`;
    expect(at253).toHaveLength(253);
    expect(name(at253)).toBe(at253);
    expect(name(`a${at253}`)).toBeNull();
    expect(name(`${at253}.`)).toBe(at253);
  });

  it('accepts every stored name the spec pattern accepts, and widens it only as documented', () => {
    for (const specOk of ['example.com', 'mail.example.com', 'my-shop.co.uk', '42.example.com']) {
      expect(SPEC_PATTERN.test(specOk)).toBe(true);
      expect(DOMAIN_NAME_PATTERN.test(specOk)).toBe(true);
    }
    // the two widenings: punycode TLDs and non-alphabetic inner labels
    for (const widened of ['xn--e1afmkfd.xn--p1ai', 'mail.my-shop.com', 'mail.xn--bcher-kva.de']) {
      expect(SPEC_PATTERN.test(widened)).toBe(false);
      expect(DOMAIN_NAME_PATTERN.test(widened)).toBe(true);
    }
  });
});

describe('searchTextForDomains', () => {
  it('converts Unicode labels to punycode and leaves ASCII text alone', () => {
    expect(searchTextForDomains('пример')).toBe('xn--e1afmkfd');
    expect(searchTextForDomains('Bücher.de')).toBe('xn--bcher-kva.de');
    expect(searchTextForDomains('ALPHA')).toBe('ALPHA');
    expect(searchTextForDomains('100%_x')).toBe('100%_x');
  });
});
