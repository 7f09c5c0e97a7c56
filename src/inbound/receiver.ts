/**
 * The inbound MX listener (docs/inbound.md, "The listener"): the SMTP server behind the MX record of
 * every domain with receiving enabled. It accepts mail only for a recipient whose domain receives
 * and whose address a route takes (550 at `RCPT TO` otherwise: no relay, no backscatter), reads the
 * message whole within the size limit, authenticates it (src/inbound/authentication.ts), parses it
 * and records it per recipient with its route's action (src/inbound/intake.ts) before answering.
 * It needs no login: mail comes from any server on the internet.
 */
import { SMTPServer } from 'smtp-server';
import { hostname as osHostname } from 'node:os';
import { contextOf } from '../instance-context.js';
import type { Mailplane } from '../mailplane.js';
import { connectionGuard } from '../smtp/connection-guard.js';
import { readMessage, smtpListener, smtpReply as reply, type SmtpListener } from '../smtp/server.js';
import { sessionLog } from '../smtp/session-log.js';
import { ClientMessageRate } from './client-message-rate.js';
import { DEFAULT_INTAKE_LIMITS, InboundIntake, unknownRecipient } from './inbound-intake.js';

/** Options of {@link createInboundReceiver}. */
export interface InboundReceiverOptions {
  /** Largest message accepted, in bytes (default 25 MB); a larger one is answered `552 5.3.4` and nothing is kept. */
  maxMessageBytes?: number;
  /** The raw message is kept up to this size, for attachment links and delivering it again (default 1 MB). */
  maxStoredRawBytes?: number;
  /** Attachments up to this size are inline in the webhook payload, larger ones a signed link (default 256 KB). */
  inlineAttachmentBytes?: number;
  /** Name in the greeting and in the authentication results (default the `inbound.hostname` option, else the machine's host name). */
  hostname?: string;
  /** PEM key and certificate: offers STARTTLS to sending servers. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** Connections at once (default 100); more are answered 421. */
  maxClients?: number;
  /** Connections at once from one client address, an IPv6 client by its /64 (default 10); more are answered `421 4.7.0`. */
  maxConnectionsPerAddress?: number;
  /**
   * Messages a minute one client address may send, an IPv6 client by its /64 (default 120): each
   * `MAIL FROM` takes one, and the allowance refills evenly over the minute; beyond it `MAIL FROM` is
   * answered `450 4.7.1` and the client tries again later.
   */
  maxMessagesPerMinutePerAddress?: number;
  /**
   * Bytes of messages being received held at once, all connections together (default 256 MB, and
   * never below `maxMessageBytes`); a message that does not fit is read, discarded and answered `452 4.3.1`.
   */
  maxBufferedBytes?: number;
}

/** A receiver listening on one port (25 on the internet). */
export type InboundReceiver = SmtpListener;

/** Recipients of one message at most (the 100 RFC 5321 asks a server to take); more are answered `452 4.5.3`. */
export const MAX_INBOUND_RECIPIENTS = 100;

const MB = 1024 * 1024;

/**
 * Creates the inbound MX listener of a mailplane instance.
 *
 * @example
 * const inbound = createInboundReceiver(mailplane, { hostname: 'mx.mail.example.net' });
 * await inbound.listen(25);
 */
export function createInboundReceiver(mailplane: Mailplane, options: InboundReceiverOptions = {}): InboundReceiver {
  const ctx = contextOf(mailplane);
  const maxMessageBytes = options.maxMessageBytes ?? 25 * MB;
  const limits = {
    maxStoredRawBytes: options.maxStoredRawBytes ?? DEFAULT_INTAKE_LIMITS.maxStoredRawBytes,
    inlineAttachmentBytes: options.inlineAttachmentBytes ?? DEFAULT_INTAKE_LIMITS.inlineAttachmentBytes,
  };
  const hostname = options.hostname ?? ctx.config.inbound.hostname ?? osHostname();
  const budget = { used: 0, max: Math.max(options.maxBufferedBytes ?? 256 * MB, maxMessageBytes) };
  const guard = connectionGuard({ maxMessageBytes, maxConnectionsPerAddress: options.maxConnectionsPerAddress ?? 10 });
  const perMinute = options.maxMessagesPerMinutePerAddress ?? 120;
  if (!Number.isInteger(perMinute) || perMinute < 1)
    throw new Error(
      `createInboundReceiver: maxMessagesPerMinutePerAddress must be a positive integer, got ${perMinute}`,
    );
  const rate = new ClientMessageRate(perMinute, ctx.clock);
  const intake = new InboundIntake(ctx, { limits, hostname, logName: 'inbound receiver' });

  const sessions = sessionLog(ctx, 'inbound receiver');
  const server = new SMTPServer({
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : { hideSTARTTLS: true }),
    name: hostname,
    authOptional: true,
    disabledCommands: ['AUTH'],
    size: maxMessageBytes,
    maxClients: options.maxClients ?? 100,
    disableReverseLookup: true,
    logger: false,
    onConnect: (session, callback) => (sessions.opened(session), guard.onConnect(session, callback)),
    onClose: (session) => (guard.onClose(session), sessions.closed(session)),
    onMailFrom(_address, session, callback) {
      // 450, not 421: the client keeps its connection and tries this message again later.
      if (!rate.take(session.remoteAddress))
        return callback(
          reply(
            450,
            `4.7.1 Too many messages from your address: at most ${rate.perMinute} a minute are accepted, try again later`,
          ),
        );
      intake.begin(session);
      callback();
    },
    onRcptTo(address, session, callback) {
      if (intake.acceptedCount(session) >= MAX_INBOUND_RECIPIENTS)
        return callback(reply(452, '4.5.3 Too many recipients'));
      // decide() answers a failed lookup itself (451); it never rejects.
      void intake.decide(session, address.address).then((decision) => {
        if (decision === null) return callback(unknownRecipient(address.address));
        callback(decision instanceof Error ? decision : null);
      });
    },
    onData(stream, session, callback) {
      readMessage(
        stream,
        callback,
        async (raw) => {
          const count = (await intake.receive(raw, session)).length;
          sessions.accepted(session);
          return `2.0.0 Received for ${count} recipient${count === 1 ? '' : 's'}`;
        },
        (error) =>
          ctx.logger.error('inbound receiver: recording a message failed', {
            error: error instanceof Error ? error.message : String(error),
          }),
        budget,
      );
    },
  });

  guard.attach(server);
  return smtpListener(server, ctx.logger, 'inbound receiver');
}
