/**
 * JSON with integers beyond 2^53 kept exact. The API writes nanosecond timestamps as plain JSON
 * numbers of 19 digits, which `JSON.parse` rounds (by up to a few hundred nanoseconds): enough to
 * print an event twice or skip one when `tail` asks for the events from the last one's time. Such
 * integers are read as marked strings, and written back as the numbers they were.
 */

/** The mark of an integer read by {@link parseExact}; a NUL never appears in the API's text. */
const MARK = '\u0000int:';

/** The JSON text of `text` with every integer of 16 digits or more quoted and marked. */
function markLongIntegers(text: string): string {
  let out = '';
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (char === '"') {
      // Copies the string whole, escapes included, so digits inside strings stay as they are.
      let end = index + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      out += text.slice(index, end + 1);
      index = end + 1;
    } else if (char === '-' || (char >= '0' && char <= '9')) {
      let end = index + 1;
      while (end < text.length && /[0-9.eE+-]/.test(text[end]!)) end++;
      const number = text.slice(index, end);
      // The mark written as JSON writes it (a raw NUL is not allowed in a JSON string).
      out += /^-?\d{16,}$/.test(number) ? `"\\u0000int:${number}"` : number;
      index = end;
    } else {
      out += char;
      index++;
    }
  }
  return out;
}

/** `JSON.parse` keeping long integers exact (read them with {@link exactInteger}). */
export function parseExact(text: string): unknown {
  return JSON.parse(markLongIntegers(text)) as unknown;
}

/** `JSON.stringify` writing the integers {@link parseExact} kept as the numbers they were. */
export function stringifyExact(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0000int:(-?\d+)"/g, '$1');
}

/** A number or a kept integer of {@link parseExact}, as a bigint (a fraction is cut). */
export function exactInteger(value: unknown): bigint {
  if (typeof value === 'string' && value.startsWith(MARK)) return BigInt(value.slice(MARK.length));
  if (typeof value === 'number') return BigInt(Math.trunc(value));
  throw new TypeError(`not an integer: ${String(value)}`);
}
