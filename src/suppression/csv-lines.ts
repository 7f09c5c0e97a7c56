/**
 * A CSV body read line by line as it arrives: bounded memory whatever its size (one line, at most
 * {@link MAX_CSV_LINE} characters, and one decoded chunk at a time).
 */

/** The longest line kept; a longer one is reported and skipped (an address is at most 254 octets). */
export const MAX_CSV_LINE = 2048;

/** One line of the body: its number (from 1), and its text, or `null` when it was too long to keep. */
export interface CsvLine {
  number: number;
  text: string | null;
}

/** The lines of `chunks` (CRLF or LF), decoded as UTF-8 across chunk boundaries; a last line without its break counts. */
export async function* csvLines(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<CsvLine> {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: false });
  let pending = '';
  let tooLong = false;
  let number = 0;
  const finish = (text: string): CsvLine => {
    number += 1;
    const line = {
      number,
      text: tooLong || text.length > MAX_CSV_LINE ? null : text.endsWith('\r') ? text.slice(0, -1) : text,
    };
    tooLong = false;
    return line;
  };
  for await (const chunk of chunks) {
    const decoded = pending + (typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    let start = 0;
    for (let newline = decoded.indexOf('\n'); newline >= 0; newline = decoded.indexOf('\n', start)) {
      yield finish(decoded.slice(start, newline));
      start = newline + 1;
    }
    let text = decoded.slice(start);
    // A line that outgrows the bound is dropped as it arrives, so memory stays bounded.
    if (text.length > MAX_CSV_LINE) {
      tooLong = true;
      text = '';
    }
    pending = text;
  }
  pending += decoder.decode();
  if (pending !== '' || tooLong) yield finish(pending);
}

/**
 * The fields of one CSV line (RFC 4180: comma-separated, `"` quotes a field, `""` is a quote in
 * it), or `null` when its quoting is broken.
 */
export function csvFields(line: string): string[] | null {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let value = '';
      i += 1;
      for (;;) {
        const quote = line.indexOf('"', i);
        if (quote < 0) return null;
        value += line.slice(i, quote);
        if (line[quote + 1] === '"') {
          value += '"';
          i = quote + 2;
        } else {
          i = quote + 1;
          break;
        }
      }
      fields.push(value);
      if (i === line.length) return fields;
      if (line[i] !== ',') return null;
      i += 1;
    } else {
      const comma = line.indexOf(',', i);
      const value = comma < 0 ? line.slice(i) : line.slice(i, comma);
      if (value.includes('"')) return null;
      fields.push(value);
      if (comma < 0) return fields;
      i = comma + 1;
    }
  }
}
