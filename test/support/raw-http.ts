/**
 * HTTP/1.1 requests written by hand on a raw socket: request lines and targets no HTTP client would
 * send (`GET http://[/x HTTP/1.1`), and answers read byte for byte, including none at all.
 */
import { connect } from 'node:net';

/** The parsed answer; `status: 'closed'` when the server ended the connection without one. */
export interface RawAnswer {
  status: number | 'closed';
  /** Header names in lower case; a header's value as written (Latin-1). */
  headers: Record<string, string>;
  /** The body, de-chunked, decoded as UTF-8. */
  body: string;
}

/**
 * Writes `request` on a fresh connection to 127.0.0.1:`port` and reads until the server closes it
 * (send `Connection: close`). `halfClose` ends the writing side at once, as a client that vanishes
 * mid-body would.
 */
export function rawRequest(port: number, request: string, halfClose = false): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(request);
      if (halfClose) socket.end();
    });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 10 s'));
    }, 10_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseAnswer(Buffer.concat(chunks).toString('latin1')));
    });
  });
}

/** `GET target` with `Connection: close`, the target written exactly as given. */
export const rawGet = (port: number, target: string): Promise<RawAnswer> =>
  rawRequest(port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);

/**
 * `method target` with the header lines exactly as listed (a name twice sends it twice, in any
 * case), `Host`, `Connection: close` and, with a body, its `Content-Length`.
 */
export function rawCall(
  port: number,
  method: string,
  target: string,
  headers: ReadonlyArray<readonly [string, string]> = [],
  body = '',
): Promise<RawAnswer> {
  const lines = [
    `${method} ${target} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Connection: close',
    ...headers.map(([name, value]) => `${name}: ${value}`),
  ];
  if (body !== '' || method !== 'GET') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return rawRequest(port, `${lines.join('\r\n')}\r\n\r\n${body}`);
}

function parseAnswer(text: string): RawAnswer {
  const head = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n/.exec(text);
  if (!head) return { status: 'closed', headers: {}, body: text };
  const headers = Object.fromEntries(
    head[2]!
      .split('\r\n')
      .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  let body = text.slice(head[0].length);
  if (headers['transfer-encoding'] === 'chunked') {
    let out = '';
    for (let rest = body; ;) {
      const size = Number.parseInt(rest, 16);
      if (!(size > 0)) break;
      const start = rest.indexOf('\r\n') + 2;
      out += rest.slice(start, start + size);
      rest = rest.slice(start + size + 2);
    }
    body = out;
  }
  return { status: Number(head[1]), headers, body: Buffer.from(body, 'latin1').toString('utf8') };
}
