/** Sending one signed message through an {@link SmtpPool}, and reading what happened into a DeliveryResult. */
import { classifySmtpReply } from '../../../src/bounce/classify.js';
import { noReply, type DeliveryResult, type Envelope } from '../../../src/delivery/transport.js';
import type { MessageBytes } from './dot-stuffing.js';
import { SmtpError } from './smtp-protocol.js';
import type { SmtpPool } from './smtp-pool.js';

/** The result of a failure without a decisive reply; `tls` marks a failed TLS handshake. */
export function resultOfError(error: unknown, host: string): DeliveryResult & { tls?: boolean } {
  if (error instanceof SmtpError) {
    // A refused login is the relay's configuration, not the recipient's address: retried, never suppressed.
    if (error.code === 'EAUTH') return noReply(`EAUTH: ${error.message}`, host);
    if (error.code === 'EBUSY') return { ...noReply(`EBUSY: ${error.message}`, host), notAttempted: true };
    const before = error.beforeTransaction && { beforeTransaction: true };
    if (error.reply) return { ...classifySmtpReply(error.reply), host, ...before };
    return {
      ...noReply(`${error.code}: ${error.message}`, host),
      ...(error.code === 'ETLS' && { tls: true }),
      ...before,
    };
  }
  return noReply(error instanceof Error ? error.message : String(error), host);
}

/**
 * Sends `message` (one buffer or its parts) with `envelope` through `pool` and classifies the outcome for the first recipient
 * (the message's own; cc and bcc copies ride along in the same transaction): its RCPT reply when
 * refused, else the reply to the data.
 */
export async function sendRaw(
  pool: SmtpPool,
  envelope: Envelope,
  message: MessageBytes,
  host: string,
): Promise<DeliveryResult & { tls?: boolean }> {
  try {
    const transaction = await pool.send(envelope, message);
    const primary = transaction.recipients[0];
    const decisive =
      primary && (primary.reply.code < 200 || primary.reply.code >= 300) ? primary.reply : transaction.reply;
    // No recipient was answered: MAIL FROM itself was refused, before this message's transaction began.
    const before = transaction.recipients.length === 0 && { beforeTransaction: true };
    return { ...classifySmtpReply(decisive), host, ...before };
  } catch (error) {
    return resultOfError(error, host);
  }
}
