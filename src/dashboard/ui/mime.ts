/**
 * Just enough MIME (RFC 2045/2046) to show a captured message in the sandbox inbox: its header
 * fields, and its text and HTML bodies (nested multiparts, quoted-printable and base64, UTF-8 and
 * Latin-1). No DOM: unit-tested in test/unit/dashboard-format.test.ts.
 */

/** A header field as received (folded lines joined). */
export interface HeaderField {
  name: string;
  value: string;
}

/** What the inbox shows of a message. */
export interface ParsedMail {
  headers: HeaderField[];
  text: string | undefined;
  html: string | undefined;
}

/** Splits a message or part into its header fields and body at the first empty line. */
function splitHead(raw: string): { headers: HeaderField[]; body: string } {
  const match = /\r?\n\r?\n/.exec(raw);
  const head = match ? raw.slice(0, match.index) : raw;
  const body = match ? raw.slice(match.index + match[0].length) : '';
  const headers: HeaderField[] = [];
  for (const line of head.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && headers.length > 0) headers[headers.length - 1]!.value += ` ${line.trim()}`;
    else {
      const colon = line.indexOf(':');
      if (colon > 0) headers.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
    }
  }
  return { headers, body };
}

const field = (headers: HeaderField[], name: string) => headers.find((h) => h.name.toLowerCase() === name)?.value ?? '';

/** A parameter (`boundary`, `charset`) of a header value. */
function parameter(value: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i').exec(value);
  return match ? (match[1] ?? match[2]) : undefined;
}

/** The bytes of a body in its transfer encoding. */
function decodeTransfer(body: string, encoding: string): Uint8Array {
  const kind = encoding.toLowerCase();
  if (kind === 'base64') {
    const binary = atob(body.replace(/[^A-Za-z0-9+/=]/g, ''));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  }
  const text = kind === 'quoted-printable' ? body.replace(/=\r?\n/g, '') : body;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex =
      kind === 'quoted-printable' && text[i] === '=' ? /^[0-9A-Fa-f]{2}$/.exec(text.slice(i + 1, i + 3)) : null;
    if (hex) {
      bytes.push(parseInt(hex[0], 16));
      i += 2;
    } else {
      const code = text.charCodeAt(i);
      if (code < 0x80) bytes.push(code);
      else bytes.push(...new TextEncoder().encode(text[i]));
    }
  }
  return Uint8Array.from(bytes);
}

/** A part's text: its bytes decoded in its charset (UTF-8 when unknown). */
function partText(headers: HeaderField[], body: string): string {
  const bytes = decodeTransfer(body, field(headers, 'content-transfer-encoding') || '7bit');
  const charset = (parameter(field(headers, 'content-type'), 'charset') ?? 'utf-8').toLowerCase();
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** Walks a part, keeping the first text/plain and text/html bodies found. */
function walk(raw: string, found: ParsedMail, depth: number): HeaderField[] {
  const { headers, body } = splitHead(raw);
  const type = field(headers, 'content-type').toLowerCase() || 'text/plain';
  const boundary = parameter(field(headers, 'content-type'), 'boundary');
  if (type.startsWith('multipart/') && boundary && depth < 10) {
    const parts = body.split(
      new RegExp(`\\r?\\n?--${boundary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:--)?[ \\t]*\\r?\\n?`),
    );
    for (const part of parts.slice(1)) if (part.trim() !== '') walk(part, found, depth + 1);
  } else if (type.startsWith('text/html')) found.html ??= partText(headers, body);
  else if (type.startsWith('text/plain')) found.text ??= partText(headers, body);
  return headers;
}

/** The header fields and the text and HTML bodies of a raw message. */
export function parseMail(raw: string): ParsedMail {
  const found: ParsedMail = { headers: [], text: undefined, html: undefined };
  found.headers = walk(raw, found, 0);
  return found;
}
