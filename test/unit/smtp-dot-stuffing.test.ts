import { randomBytes } from 'node:crypto';
import DataStream from 'nodemailer/lib/smtp-connection/data-stream';
import { describe, expect, it } from 'vitest';
import { dataPayload, hasOnlyCrlf } from '../../adapters/transport/smtp/dot-stuffing.js';

/** What nodemailer's DataStream makes of `message`: the reference the payload must equal. */
async function nodemailerPayload(message: Buffer): Promise<Buffer> {
  const stream = new DataStream();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => stream.on('end', resolve));
  stream.end(message);
  await ended;
  return Buffer.concat(chunks);
}

/** Random text made mostly of the bytes that matter: CR, LF, dots, and a little else. */
function awkward(length: number): Buffer {
  const alphabet = Buffer.from('\r\n..ab \r\n');
  const noise = randomBytes(length);
  return Buffer.from(noise.map((byte) => alphabet[byte % alphabet.length]!));
}

describe('the DATA payload', () => {
  it('stuffs a dot at the start of every line, the first one included, and ends with CRLF.CRLF', () => {
    const payload = Buffer.concat(dataPayload(Buffer.from('.first\r\nmiddle\r\n.\r\n..two\r\nlast')));
    expect(payload.toString()).toBe('..first\r\nmiddle\r\n..\r\n...two\r\nlast\r\n.\r\n');
    expect(Buffer.concat(dataPayload(Buffer.from('ends with a line break\r\n'))).toString()).toBe(
      'ends with a line break\r\n.\r\n',
    );
  });

  it('turns bare CR and bare LF into CRLF, so "\\r.\\r" cannot end the data early (SMTP smuggling)', () => {
    const payload = Buffer.concat(dataPayload(Buffer.from('a\r.\rb\n.\nc'))).toString();
    expect(payload).toBe('a\r\n..\r\nb\r\n..\r\nc\r\n.\r\n');
    expect(hasOnlyCrlf(Buffer.from('a\r\nb\r\n'))).toBe(true);
    expect(hasOnlyCrlf(Buffer.from('a\nb'))).toBe(false);
    expect(hasOnlyCrlf(Buffer.from('a\rb'))).toBe(false);
    expect(hasOnlyCrlf(Buffer.from('\nb'))).toBe(false);
  });

  it('is byte for byte what nodemailer writes, for a thousand awkward messages', async () => {
    for (let i = 0; i < 1000; i++) {
      const message =
        i % 2 === 0
          ? awkward(1 + (i % 97))
          : Buffer.from(
              awkward(1 + (i % 97))
                .toString('latin1')
                .replace(/\r?\n|\r/g, '\r\n'),
              'latin1',
            );
      const expected = await nodemailerPayload(message);
      expect(Buffer.concat(dataPayload(message)).equals(expected), JSON.stringify(message.toString('latin1'))).toBe(
        true,
      );
    }
  });

  it('gives a message in parts exactly what it gives the joined message, wherever the parts are cut', async () => {
    for (let i = 0; i < 600; i++) {
      // Small messages, and some over the size from which a part's scan is remembered.
      const length = i % 10 === 0 ? 9_000 + (i % 3000) : 1 + (i % 97);
      const message =
        i % 2 === 0
          ? awkward(length)
          : Buffer.from(
              awkward(length)
                .toString('latin1')
                .replace(/\r?\n|\r/g, '\r\n'),
              'latin1',
            );
      const cuts = [...new Set(Array.from({ length: i % 4 }, () => Math.floor(Math.random() * message.length)))].sort(
        (a, b) => a - b,
      );
      const parts = [0, ...cuts].map((from, k) => message.subarray(from, [...cuts, message.length][k]));
      const expected = await nodemailerPayload(message);
      expect(
        Buffer.concat(dataPayload(parts)).equals(expected),
        JSON.stringify(parts.map((p) => p.toString('latin1'))),
      ).toBe(true);
    }
  });

  it('sends a body shared by many messages in slices of that body, each message right', async () => {
    const shared = Buffer.from(
      `.first line of the body\r\n${randomBytes(60_000).toString('base64').replace(/.{76}/g, '$&\r\n')}\r\n.\r\n`,
    );
    for (const n of [1, 2, 3]) {
      const head = Buffer.from(`Subject: message ${n}\r\n\r\n`);
      const chunks = dataPayload([head, shared]);
      expect(Buffer.concat(chunks).equals(await nodemailerPayload(Buffer.concat([head, shared])))).toBe(true);
      expect(chunks.filter((chunk) => chunk.length > 1000).every((chunk) => chunk.buffer === shared.buffer)).toBe(true);
    }
    // The same body after a part that does not end its line: the leading dot is not at a line start.
    const midLine = Buffer.from('Subject: x\r\n\r\nno line break here');
    expect(
      Buffer.concat(dataPayload([midLine, shared])).equals(await nodemailerPayload(Buffer.concat([midLine, shared]))),
    ).toBe(true);
  });

  it('keeps a composed 100 KB message in slices of the original: no copy of the body', () => {
    const body = Buffer.from(
      `Subject: x\r\n\r\n${randomBytes(75_000).toString('base64').replace(/.{76}/g, '$&\r\n')}\r\n`,
    );
    const chunks = dataPayload(body);
    expect(chunks).toHaveLength(2);
    expect(chunks[0]!.buffer).toBe(body.buffer);
  });
});
