/**
 * Synchronous serialization of a nodemailer MIME tree. nodemailer decides everything MIME
 * (`new MailComposer(...).compile()` builds the MimeNode tree: structure, headers and their
 * encodings, boundaries, transfer encodings); this writes that tree out with native Buffer
 * operations instead of `MimeNode.build()`'s stream pipeline (a PassThrough per part, a base64
 * Transform, chunk collection, a `setImmediate` per step), which costs about 1 ms of main-thread
 * CPU for a 100 KB message. The output is byte for byte what `build()` gives
 * (test/unit/delivery-mime.test.ts holds it to that); anything the fast path does not model
 * (stream, file or URL contents, raw parts, quoted-printable, transforms, a `newline` option) is
 * reported as `null` so the caller falls back to `build()`.
 *
 * The format, from nodemailer's `MimeNode.stream()`: a node is its header block, a blank line,
 * its content in its transfer encoding (base64 wrapped at 76 characters with CRLF, the last line
 * without one; anything else as is), then for a multipart node each child preceded by
 * `CRLF--boundary CRLF` (no CRLF before the first), and `CRLF--boundary--CRLF`. The whole message
 * ends in a line break (nodemailer's LastNewline: CRLF appended, or LF after a trailing CR).
 */
import type MimeNode from 'nodemailer/lib/mime-node';

/** A serialized message split at the blank line that ends its top-level header block. */
export interface MimeWire {
  /** The top-level header fields, CRLF-separated, without the blank line. */
  head: string;
  /** Everything after the blank line, ending in a line break. */
  body: Buffer;
}

/** The MimeNode state the serializer reads that nodemailer's typings leave out (see its index.js). */
interface MimeNodeInternals {
  _raw?: unknown;
  _transforms?: unknown[];
  _processFuncs?: unknown[];
  newline?: string;
  content?: unknown;
  multipart?: string | false;
  boundary?: string | false;
  childNodes: MimeNode[];
}

const internals = (node: MimeNode) => node as unknown as MimeNodeInternals;

const BASE64_LINE = 76;

/**
 * Whether every node of the tree is one the fast path reproduces exactly: contents that are
 * strings or Buffers (or none) in base64 or as-is, no raw parts. Checked before anything is
 * written, as `buildHeaders()` mutates the nodes (harmlessly: `build()` rebuilds the same
 * headers, but a fallback decided up front keeps the two paths apart).
 */
function serializable(node: MimeNode, root: boolean): boolean {
  const n = internals(node);
  if (root && (n._transforms?.length || n._processFuncs?.length || n.newline)) return false;
  if (n._raw) return false;
  const content = n.content;
  if (content && typeof content !== 'string' && !Buffer.isBuffer(content)) return false;
  if (content && pinTransferEncoding(node) === 'quoted-printable') return false;
  return n.childNodes.every((child) => serializable(child, false));
}

/**
 * Decides the node's transfer encoding once and sets it as its Content-Transfer-Encoding header,
 * where `buildHeaders()` would put it (it sets that header first, and nothing changes the node's
 * headers in between), so the same bytes come out. Unpinned, nodemailer decides it again at each
 * of the three reads (here, in `writeNode`, in `buildHeaders()`), and each decision of a body it
 * base64-encodes converts the whole body to a string first (`_getTextEncoding`): 300 KB of
 * garbage for a 100 KB body. A pinned base64 or quoted-printable header is taken as is; the other
 * encodings are decided again, without that conversion.
 */
function pinTransferEncoding(node: MimeNode): string | false {
  const encoding = node.getTransferEncoding();
  if (encoding) node.setHeader('Content-Transfer-Encoding', encoding);
  return encoding;
}

const BASE64_ALPHABET = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/');
/** Two base64 characters (high byte first) for each 12-bit value: a 3-byte group is two lookups. */
const BASE64_PAIRS = new Uint16Array(4096).map((_, i) => (BASE64_ALPHABET[i >> 6]! << 8) | BASE64_ALPHABET[i & 63]!);
/** Input bytes per 76-character base64 line. */
const LINE_BYTES = (BASE64_LINE / 4) * 3;

/** The length of {@link wrappedBase64}'s output for `length` input bytes. */
function wrappedLength(length: number): number {
  if (length === 0) return 0;
  const encodedLength = Math.ceil(length / 3) * 4;
  return encodedLength + 2 * (Math.ceil(encodedLength / BASE64_LINE) - 1);
}

/**
 * Base64 of `bytes`, wrapped at 76 characters with CRLF and no line break after the last line:
 * nodemailer's `base64.Encoder` output. Encoded straight into the output buffer, four characters
 * per 32-bit write, which is faster than `toString('base64')` plus wrapping (that makes a string
 * of the whole encoding on the JavaScript heap, then copies it line by line); the last, partial
 * line is encoded natively.
 */
export function wrappedBase64(bytes: Buffer): Buffer {
  const out = Buffer.allocUnsafe(wrappedLength(bytes.length));
  wrappedBase64Into(bytes, out, 0);
  return out;
}

/** {@link wrappedBase64} written into `out` at `start` (which has room for it); returns the end. */
function wrappedBase64Into(bytes: Buffer, out: Buffer, start: number): number {
  const length = bytes.length;
  const end = start + wrappedLength(length);
  const view = new DataView(out.buffer, out.byteOffset, out.length);
  const whole = length - (length % LINE_BYTES);
  let at = start;
  let i = 0;
  while (i < whole) {
    if (i > 0) {
      view.setUint16(at, 0x0d0a);
      at += 2;
    }
    for (const lineEnd = i + LINE_BYTES; i < lineEnd; i += 3) {
      const group = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
      view.setUint32(at, (BASE64_PAIRS[group >>> 12]! << 16) | BASE64_PAIRS[group & 0xfff]!);
      at += 4;
    }
  }
  if (i < length) {
    if (i > 0) {
      view.setUint16(at, 0x0d0a);
      at += 2;
    }
    at += out.write(bytes.toString('base64', i), at, 'latin1');
  }
  if (at !== end) throw new Error('base64: wrapped length mismatch'); // never hand out unwritten bytes
  return at;
}

/** A piece of a serialized body: bytes as they are, or bytes to write base64-encoded and wrapped. */
type Piece = Buffer | { base64: Buffer };

const pieceLength = (piece: Piece) => (Buffer.isBuffer(piece) ? piece.length : wrappedLength(piece.base64.length));

/** Appends `node` (headers unless `skipHeaders`, content, children) to `out`; returns its header block. */
function writeNode(node: MimeNode, out: Piece[], skipHeaders: boolean): string {
  const n = internals(node);
  // Same order as MimeNode.stream(): the transfer encoding is read before buildHeaders() sets it.
  const transferEncoding = node.getTransferEncoding();
  const head = node.buildHeaders();
  if (!skipHeaders) out.push(Buffer.from(`${head}\r\n\r\n`));
  const content = n.content as string | Buffer | undefined;
  if (content) {
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    out.push(transferEncoding === 'base64' ? { base64: bytes } : bytes);
  }
  if (n.multipart) {
    n.childNodes.forEach((child, i) => {
      out.push(Buffer.from(`${i > 0 ? '\r\n' : ''}--${n.boundary}\r\n`));
      writeNode(child, out, false);
    });
    out.push(Buffer.from(`\r\n--${n.boundary}--\r\n`));
  }
  return head;
}

/**
 * The pieces written into one buffer sized up front (no intermediate encoding to copy), followed by
 * nodemailer's LastNewline: the message ends in LF; after a trailing CR only LF is added. An empty
 * body leaves the message ending in the header block's blank line.
 */
function joinPieces(pieces: Piece[]): Buffer {
  let length = 0;
  for (const piece of pieces) length += pieceLength(piece);
  // Room for the closing CRLF; the buffer handed out is the written view only.
  const out = Buffer.allocUnsafe(length + 2);
  let at = 0;
  for (const piece of pieces)
    at = Buffer.isBuffer(piece) ? at + piece.copy(out, at) : wrappedBase64Into(piece.base64, out, at);
  if (at > 0 && out[at - 1] !== 0x0a) {
    if (out[at - 1] !== 0x0d) out[at++] = 0x0d;
    out[at++] = 0x0a;
  }
  return out.subarray(0, at);
}

/**
 * Serializes the compiled tree `root` (from `MailComposer.compile()`), split into its top-level
 * header block and body, or `null` when the tree needs `build()` (see the module comment).
 */
export function serializeMimeParts(root: MimeNode): MimeWire | null {
  if (!serializable(root, true)) return null;
  const pieces: Piece[] = [];
  const head = writeNode(root, pieces, true);
  return { head, body: joinPieces(pieces) };
}

/** The whole message `root` serializes to: what `root.build()` resolves to, or `null` (see {@link serializeMimeParts}). */
export function serializeMime(root: MimeNode): Buffer | null {
  const parts = serializeMimeParts(root);
  return parts && Buffer.concat([Buffer.from(`${parts.head}\r\n\r\n`), parts.body]);
}
