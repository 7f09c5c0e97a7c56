/**
 * Characters a reader cannot see but that change what text looks like: the bidirectional
 * controls (U+202E turns `moc.elgoog@dab` around on screen) and the other invisible format
 * characters (zero-width spaces and joiners, U+2060, U+FEFF, the soft hyphen, tag characters).
 *
 * The set is Unicode's general category Cf together with the Default_Ignorable_Code_Point
 * property, which adds the invisible characters filed elsewhere (U+034F, the Hangul fillers, the
 * variation selectors, U+E0000-U+E0FFF), plus lone UTF-16 surrogates, which no encoding of the
 * text can carry (stored as UTF-8 they become U+FFFD). One exception keeps real names working:
 * ZERO WIDTH NON-JOINER and ZERO WIDTH JOINER (U+200C, U+200D) are part of how Persian, Arabic and
 * the Indic scripts are written (IDNA2008 permits them in such contexts, RFC 5892 appendix A.1-2),
 * and there they visibly change the letters' shapes; so a joiner between two letters or marks of a
 * script that shapes with it is kept, and a joiner anywhere else (between Latin letters, at an
 * edge) counts as invisible.
 *
 * No dependencies: the dashboard's browser bundle uses it to show such characters escaped.
 */

const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cs}]/u;
const JOINERS: ReadonlySet<string> = new Set(['\u200c', '\u200d']);
/** Letters and marks of the scripts whose shaping joiners control: Arabic-type joining and Brahmic scripts. */
const SHAPING =
  /^(?=[\p{L}\p{M}])[\p{scx=Arab}\p{scx=Syrc}\p{scx=Nkoo}\p{scx=Mong}\p{scx=Deva}\p{scx=Beng}\p{scx=Guru}\p{scx=Gujr}\p{scx=Orya}\p{scx=Taml}\p{scx=Telu}\p{scx=Knda}\p{scx=Mlym}\p{scx=Sinh}\p{scx=Mymr}\p{scx=Khmr}]$/u;

/** True when the character at `index` of `chars` is invisible in the sense of this module. */
function invisibleAt(chars: readonly string[], index: number): boolean {
  const char = chars[index]!;
  if (!INVISIBLE.test(char)) return false;
  if (!JOINERS.has(char)) return true;
  const before = chars[index - 1];
  const after = chars[index + 1];
  return before === undefined || after === undefined || !SHAPING.test(before) || !SHAPING.test(after);
}

/** `char`'s code point as `U+XXXX` (at least four hex digits). */
export const codePointLabel = (char: string): string =>
  `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The first invisible character of `text` (see the module comment), or `null` when it has none.
 *
 * @example
 * firstInvisibleCharacter('ad\u202Ea@example.com') // '\u202E'
 * firstInvisibleCharacter('می\u200Cخواهم')         // null: a joiner inside Persian letters
 */
export function firstInvisibleCharacter(text: string): string | null {
  // Cheap exit: most text has nothing to look at.
  if (!INVISIBLE.test(text)) return null;
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) if (invisibleAt(chars, i)) return chars[i]!;
  return null;
}

/**
 * `text` with every invisible character written out as an escape a person can read, `\u202E`
 * (`\u{E0041}` beyond the BMP), so a name that would reverse or hide part of what follows is
 * shown for what it is. Text without such characters comes back unchanged.
 */
export function revealInvisible(text: string): string {
  if (!INVISIBLE.test(text)) return text;
  const chars = Array.from(text);
  return chars
    .map((char, i) => {
      if (!invisibleAt(chars, i)) return char;
      const code = char.codePointAt(0)!;
      return code > 0xffff
        ? `\\u{${code.toString(16).toUpperCase()}}`
        : `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    })
    .join('');
}
