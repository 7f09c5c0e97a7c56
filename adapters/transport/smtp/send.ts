/** Sending one signed message through a nodemailer pool, and reading what happened into a DeliveryResult. */
import nodemailer from 'nodemailer';
import type { SMTPPoolOptions } from 'nodemailer/lib/smtp-pool';
import { classifySmtpReply, noReply } from '../../../src/bounce/classify.js';
import type { DeliveryResult, Envelope } from '../../../src/delivery/transport.js';

/** A pooled SMTP client to one host. */
export type Pool = ReturnType<typeof createPool>;

/** Opens (lazily) a nodemailer pool; connections are reused across messages. */
export function createPool(options: SMTPPoolOptions) {
  const transporter = nodemailer.createTransport({ ...options, pool: true });
  // A pool reports connection failures through the sendMail callback; this keeps a stray
  // 'error' event (e.g. an idle connection reset) from crashing the process.
  transporter.on('error', () => {});
  return transporter;
}

interface NodemailerLikeError {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

/** The result of an error nodemailer reported (a reply, or a failure without one). */
export function resultOfError(error: unknown, host: string): DeliveryResult & { tls?: boolean } {
  const e = (error ?? {}) as NodemailerLikeError;
  if (typeof e.responseCode === 'number' && e.responseCode >= 200) {
    return { ...classifySmtpReply({ code: e.responseCode, text: (e.response ?? e.message ?? '').trim() }), host };
  }
  const text = `${e.code ? `${e.code}: ` : ''}${(e.message ?? String(error)).trim()}`;
  const tls = e.code === 'ETLS' || (e.code === 'ESOCKET' && /SSL routines|TLS|handshake|certificate/i.test(e.message ?? ''));
  return { ...noReply(text, host), ...(tls && { tls: true }) };
}

/**
 * Sends `raw` with `envelope` through `pool` and classifies the outcome for the first recipient
 * (the message's own; cc and bcc copies ride along in the same transaction).
 */
export async function sendRaw(pool: Pool, envelope: Envelope, raw: Buffer, host: string): Promise<DeliveryResult & { tls?: boolean }> {
  try {
    const info = await pool.sendMail({ envelope: { from: envelope.from, to: envelope.to }, raw });
    const primary = envelope.to[0]!.toLowerCase();
    const rejectedAt = (info.rejected ?? []).findIndex((r) => String(r).toLowerCase() === primary);
    if (rejectedAt >= 0) return resultOfError(info.rejectedErrors?.[rejectedAt], host);
    return { ...classifySmtpReply({ code: Number(String(info.response).slice(0, 3)) || 250, text: String(info.response ?? '250').trim() }), host };
  } catch (error) {
    return resultOfError(error, host);
  }
}
