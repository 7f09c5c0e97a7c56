/**
 * What mailplane's SMTP servers (the relay, the bounce receiver) share on top of smtp-server:
 * replies with a code, reading a message whole, and listening on a port.
 */
import type { AddressInfo } from 'node:net';
import type { SMTPServer, SMTPServerDataStream } from 'smtp-server';
import type { Logger } from '../context.js';

/** One of mailplane's SMTP servers, listening on one port; create one per port. */
export interface SmtpListener {
  /** Starts listening; answers the bound address (port 0 picks a free one). */
  listen(port: number, host?: string): Promise<AddressInfo>;
  /** Stops accepting connections and closes the open ones. */
  close(): Promise<void>;
}

/** An error smtp-server answers as `<responseCode> <text>`. */
export function smtpReply(responseCode: number, text: string): Error & { responseCode: number } {
  return Object.assign(new Error(text), { responseCode });
}

/**
 * Reads the DATA of one message whole, then answers with what `handle` resolves to (the text of
 * a 250) or the reply it throws. A message over the server's size limit is `552 5.3.4`: once the
 * limit is passed the rest is read and thrown away as it arrives (a client may only be answered
 * after its final dot), so an oversized message costs no more memory than the limit. Any other
 * failure is `451`, so the sender keeps the message and tries again.
 */
export function readMessage(
  stream: SMTPServerDataStream,
  callback: (error?: Error | null, message?: string) => void,
  handle: (raw: Buffer) => Promise<string>,
  onFailure: (error: unknown) => void,
): void {
  let chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => {
    // smtp-server updates sizeExceeded as the bytes arrive.
    if (stream.sizeExceeded) chunks = [];
    else chunks.push(chunk);
  });
  stream.once('error', (error) => callback(smtpReply(451, `4.3.0 ${error.message}`)));
  stream.once('end', () => {
    if (stream.sizeExceeded) return callback(smtpReply(552, '5.3.4 Message exceeds the size limit'));
    handle(Buffer.concat(chunks)).then(
      (text) => callback(null, text),
      (error: unknown) => {
        if (error instanceof Error && 'responseCode' in error) return callback(error);
        onFailure(error);
        callback(smtpReply(451, '4.3.0 Temporary failure, try again later'));
      },
    );
  });
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
