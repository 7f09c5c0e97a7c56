/**
 * The DATA payload of an SMTP transaction (RFC 5321 4.5.2): lines end in CRLF, a line starting with
 * a dot gets a second dot, and the message ends with `CRLF.CRLF`. A message mailplane composed
 * already ends its lines in CRLF: that is proven with native byte searches and its few dots at line
 * starts are found the same way, so a 100 KB message costs a few thousand native calls instead of a
 * JavaScript loop over every byte. Anything else (a bare CR or LF) goes through the byte loop, which
 * turns each into CRLF like nodemailer's DataStream does (a bare CR read as a line end by the receiver
 * would let `\r.\r` end the data early: SMTP smuggling).
 */

const LF = 0x0a;
const CR = 0x0d;
const DOT = 0x2e;
const DOT_BYTE = Buffer.from('.');
const LF_DOT = Buffer.from('\n.');
const LF_BYTE = Buffer.from('\n');
const CR_BYTE = Buffer.from('\r');
const LINE_START_DOT = Buffer.from('\n.');
const END_AFTER_CRLF = Buffer.from('.\r\n');
const END_AFTER_CR = Buffer.from('\n.\r\n');
const END = Buffer.from('\r\n.\r\n');

/** Whether every line break of `message` is CRLF: no bare CR, no bare LF. */
export function hasOnlyCrlf(message: Buffer): boolean {
  for (let i = message.indexOf(LF); i !== -1; i = message.indexOf(LF, i + 1)) {
    if (i === 0 || message[i - 1] !== CR) return false;
  }
  for (let i = message.indexOf(CR); i !== -1; i = message.indexOf(CR, i + 1)) {
    if (message[i + 1] !== LF) return false;
  }
  return true;
}

function terminator(lastByte: number | undefined): Buffer {
  if (lastByte === LF) return END_AFTER_CRLF;
  if (lastByte === CR) return END_AFTER_CR;
  return END;
}

/** Dot-stuffing of a message whose line breaks are all CRLF, by native searches. */
function stuffCanonical(message: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  let start = 0;
  if (message[0] === DOT) chunks.push(DOT_BYTE);
  for (let at = message.indexOf(LINE_START_DOT); at !== -1; at = message.indexOf(LINE_START_DOT, at + 2)) {
    chunks.push(message.subarray(start, at + 1), DOT_BYTE);
    start = at + 1;
  }
  chunks.push(start === 0 ? message : message.subarray(start));
  return chunks;
}

/** Byte by byte, for messages with bare CR or LF: the same rules as nodemailer's DataStream. */
function stuffAnyLineBreaks(message: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < message.length; i++) {
    const byte = message[i]!;
    const previous = i === 0 ? undefined : message[i - 1];
    let insert: Buffer | null = null;
    if (previous === CR && byte !== LF) insert = byte === DOT ? LF_DOT : LF_BYTE;
    else if (byte === LF && previous !== CR) insert = CR_BYTE;
    else if (byte === DOT && (previous === LF || previous === undefined)) insert = DOT_BYTE;
    if (insert) {
      if (i > start) chunks.push(message.subarray(start, i));
      chunks.push(insert);
      start = i;
    }
  }
  if (start < message.length) chunks.push(message.subarray(start));
  return chunks;
}

/** A message as one buffer, or as consecutive slices (`OutboundMessage.parts`). */
export type MessageBytes = Buffer | readonly Buffer[];

/** The length in bytes of `message`. */
export function messageLength(message: MessageBytes): number {
  if (Buffer.isBuffer(message)) return message.length;
  let length = 0;
  for (const part of message) length += part.length;
  return length;
}

/**
 * Slices below this size are scanned each time: remembering them would cost more than the scan,
 * and they are a message's own header block, never shared.
 */
const REMEMBERED_FROM = 8 * 1024;

/**
 * The stuffed slices of each large part that begins a line, or `null` when the part has a bare CR
 * or LF, by the part's identity: parts are never modified (the transport contract says so), and a
 * body a bulk batch shares is the same buffer in each of its messages, so it is scanned once.
 */
const stuffedParts = new WeakMap<Buffer, readonly Buffer[] | null>();

function stuffedPart(part: Buffer): readonly Buffer[] | null {
  const known = stuffedParts.get(part);
  if (known !== undefined) return known;
  const stuffed = hasOnlyCrlf(part) ? stuffCanonical(part) : null;
  if (part.length >= REMEMBERED_FROM) stuffedParts.set(part, stuffed);
  return stuffed;
}

/**
 * What to write after the server's 354 for `message`: the dot-stuffed message with CRLF line breaks
 * and the terminating `CRLF.CRLF`, as a list of slices (written with one `writev`, never copied).
 * A message in parts is stuffed part by part when each part is CRLF-only and begins a line (the part
 * before it ends in CRLF), which is how mailplane composes; otherwise its parts are joined first, so
 * that a line break or a dot split across two parts is treated as in one buffer.
 */
export function dataPayload(message: MessageBytes): Buffer[] {
  const parts = Buffer.isBuffer(message) ? [message] : message.filter((part) => part.length > 0);
  if (parts.length === 0) return [END];
  const chunks: Buffer[] = [];
  for (let i = 0; i < parts.length; i++) {
    const beginsLine = i === 0 || parts[i - 1]![parts[i - 1]!.length - 1] === LF;
    const stuffed = beginsLine ? stuffedPart(parts[i]!) : null;
    if (!stuffed) return wholePayload(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
    chunks.push(...stuffed);
  }
  const last = parts[parts.length - 1]!;
  chunks.push(terminator(last[last.length - 1]));
  return chunks;
}

/** {@link dataPayload} of a message in one buffer that is not known to be CRLF-only. */
function wholePayload(message: Buffer): Buffer[] {
  const chunks = hasOnlyCrlf(message) ? stuffCanonical(message) : stuffAnyLineBreaks(message);
  chunks.push(terminator(message[message.length - 1]));
  return chunks;
}
