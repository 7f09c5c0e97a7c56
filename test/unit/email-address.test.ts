/**
 * The one email-address rule (src/model/email-address.ts) and the invisible characters it refuses
 * (src/model/invisible.ts): bidirectional controls and invisible format characters disguise an
 * address, while internationalised local parts and IDN domains keep working.
 */
import { describe, expect, it } from 'vitest';
import { emailAddressProblem, isEmailAddress } from '../../src/model/email-address.js';
import { firstInvisibleCharacter, revealInvisible } from '../../src/model/invisible.js';

/** Every character the brief names, and the rest of the class: Cf, default-ignorables, lone surrogates. */
const INVISIBLE = [
  ...[
    '\u202a',
    '\u202b',
    '\u202c',
    '\u202d',
    '\u202e',
    '\u2066',
    '\u2067',
    '\u2068',
    '\u2069',
    '\u200e',
    '\u200f',
    '\u061c',
  ],
  ...[
    '\u200b',
    '\u2060',
    '\u00ad',
    '\u034f',
    '\u180e',
    '\u2061',
    '\u3164',
    '\ufe0f',
    '\u{e0001}',
    '\u{e0041}',
    '\u{e007f}',
    '\ud800',
  ],
];

describe('email addresses with invisible or text-direction characters', () => {
  it('refuses each of them in the local part and in the domain, naming the code point', () => {
    for (const char of INVISIBLE) {
      const code = `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      expect(emailAddressProblem(`ad${char}a@example.com`), code).toBe(
        `must not contain invisible or text-direction characters (found ${code})`,
      );
      expect(isEmailAddress(`ada@exam${char}ple.com`), code).toBe(false);
    }
    // U+FEFF is white space to JavaScript: refused by the older rule, with its words.
    expect(emailAddressProblem('ad\ufeffa@example.com')).toBe(
      'must not contain spaces, line breaks or control characters',
    );
  });

  it('refuses the zero-width joiners where they change nothing a reader sees', () => {
    for (const address of [
      'pay\u200dpal@example.com',
      'pay\u200cpal@example.com',
      '\u200dadmin@example.com',
      'admin\u200c@example.com',
      'مرتضی\u200c@example.com',
    ]) {
      expect(emailAddressProblem(address), JSON.stringify(address)).toMatch(
        /^must not contain invisible .*\(found U\+200[CD]\)$/,
      );
    }
  });

  it('keeps internationalised local parts and IDN domains, joiners inside Persian and Indic words included', () => {
    for (const address of [
      'ada@example.com',
      'josé.garcía@example.com',
      '用户@例子.广告',
      'почта@пример.рф',
      'user@例え.テスト',
      'مرتضی@example.com',
      'עברית@example.co.il',
      // Persian writes ZWNJ between letters that must not join (می‌خواهم); Devanagari uses ZWJ after a virama (क्‍ष).
      'می\u200cخواهم@example.com',
      'क्\u200dष@example.com',
      'नमस्ते@उदाहरण.भारत',
    ]) {
      expect(emailAddressProblem(address), address).toBeNull();
    }
  });
});

describe('revealInvisible', () => {
  it('writes invisible characters out as escapes and leaves other text as it is', () => {
    expect(revealInvisible('Support \u202etxt.exe')).toBe('Support \\u202Etxt.exe');
    expect(revealInvisible('a\u200bb\u{e0041}c')).toBe('a\\u200Bb\\u{E0041}c');
    expect(revealInvisible('Ada Lovelace')).toBe('Ada Lovelace');
    expect(revealInvisible('می\u200cخواهم')).toBe('می\u200cخواهم');
    expect(revealInvisible('pay\u200dpal')).toBe('pay\\u200Dpal');
  });

  it('agrees with firstInvisibleCharacter', () => {
    for (const char of INVISIBLE) expect(firstInvisibleCharacter(`x${char}y`)).toBe(char);
    expect(firstInvisibleCharacter('plain text')).toBeNull();
  });
});
