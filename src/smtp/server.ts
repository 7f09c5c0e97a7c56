/**
 * What mailplane's SMTP servers (the relay, the bounce receiver) share on top of smtp-server:
 * replies with a code, reading a message whole, and listening on a port.
 */
import type { AddressInfo } from 'node:net';
import type { ParsedMail } from 'mailparser';
import type { SMTPServer, SMTPServerDataStream } from 'smtp-server';
import type { Logger } from '../logging/logger.js';
import { smtpReply, smtpReplyFor } from './errors.js';

/** One of mailplane's SMTP servers, listening on one port; create one per port. */
export interface SmtpListener {
  /** Starts listening; answers the bound address (port 0 picks a free one). */
  listen(port: number, host?: string): Promise<AddressInfo>;
  /** Stops accepting connections and closes the open ones. */
  close(): Promise<void>;
}

/** An error smtp-server answers as `<responseCode> <text>` (src/smtp/errors.ts), for the listeners that import it from here. */
export { smtpReply };

/**
 * The bytes of messages being received that one listener holds at once, across its connections:
 * each message is bounded by the size limit, and this bounds their sum (`maxClients` messages just
 * under the limit would otherwise all be held).
 */
export interface DataBudget {
  /** Bytes held now. */
  used: number;
  /** Most bytes held at once. */
  readonly max: number;
}

/**
 * Reads the DATA of one message whole, then answers with what `handle` resolves to (the text of
 * a 250) or the reply it throws. A client may only be answered after its final dot, so a message
 * that cannot be kept is read to its end and thrown away as it arrives, at no cost in memory:
 * over the server's size limit it is `552 5.3.4`; when the listener's `budget` is spent by the
 * messages being received at once, `452 4.3.1` (the sender tries again later). Any other failure
 * is given to `onFailure` (to log) and answered as src/smtp/errors.ts says: `451 4.3.0` for a
 * fault, so the sender keeps the message and tries again.
 */
export function readMessage(
  stream: SMTPServerDataStream,
  callback: (error?: Error | null, message?: string) => void,
  handle: (raw: Buffer) => Promise<string>,
  onFailure: (error: unknown) => void,
  budget: DataBudget,
): void {
  let chunks: Buffer[] = [];
  let kept = 0;
  let overBudget = false;
  const release = () => {
    budget.used -= kept;
    kept = 0;
    chunks = [];
  };
  stream.on('data', (chunk: Buffer) => {
    // smtp-server updates sizeExceeded as the bytes arrive.
    if (stream.sizeExceeded || overBudget || budget.used + chunk.length > budget.max) {
      overBudget ||= !stream.sizeExceeded;
      return release();
    }
    chunks.push(chunk);
    kept += chunk.length;
    budget.used += chunk.length;
  });
  // A client gone mid-message: what it sent is let go.
  stream.once('close', release);
  stream.once('error', (error) => (release(), callback(smtpReply(451, `4.3.0 ${error.message}`))));
  stream.once('end', () => {
    const raw = Buffer.concat(chunks);
    release();
    if (stream.sizeExceeded) return callback(smtpReply(552, '5.3.4 Message exceeds the size limit'));
    if (overBudget) return callback(smtpReply(452, '4.3.1 Insufficient system storage, try again later'));
    handle(raw).then(
      (text) => callback(null, text),
      (error: unknown) => {
        if (error instanceof Error && 'responseCode' in error) return callback(error);
        onFailure(error);
        callback(smtpReplyFor(error));
      },
    );
  });
}

/**
 * Reads a received message's MIME. A message mailparser cannot read (too many nested parts, which
 * it refuses with `EMAXLEN`, or any other malformed structure) is refused permanently, `550 5.6.0`:
 * the same bytes would fail again, so a temporary answer would have the sender retry for days.
 */
export async function parseReceivedMime(raw: Buffer): Promise<ParsedMail> {
  // Loaded on the first message, not with the library: see src/inbound/authentication.ts.
  const { simpleParser } = await import('mailparser');
  try {
    return await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0]!.slice(0, 200) : 'malformed';
    throw smtpReply(550, `5.6.0 The message's MIME structure cannot be read (${reason.replace(/[^\x20-\x7e]/g, '?')})`);
  }
}

/** `server` as a {@link SmtpListener}; connection-level errors are logged as `<name>: connection error`. */
export function smtpListener(server: SMTPServer, logger: Logger, name: string): SmtpListener {
  // A client that resets, a failed TLS handshake: they end that session only.
  server.on('error', (error: Error) => logger.warn(`${name}: connection error`, { error: error.message }));
  return {
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.server.address() as AddressInfo);
        });
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
