/**
 * The inbound MX listener (docs/inbound.md, "The listener"): the SMTP server behind the MX record of
 * every domain with receiving enabled. It accepts mail only for a recipient whose domain receives
 * and whose address a route takes (550 at `RCPT TO` otherwise: no relay, no backscatter), reads the
 * message whole within the size limit, authenticates it (src/inbound/authentication.ts), parses it
 * and records it per recipient with its route's action (src/inbound/intake.ts) before answering.
 * It needs no login: mail comes from any server on the internet.
 */
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import type { ParsedMail } from 'mailparser';
import { hostname as osHostname } from 'node:os';
import { contextOf } from '../instance-context.js';
import type { Mailplane } from '../mailplane.js';
import { connectionGuard } from '../smtp/connection-guard.js';
import { parseReceivedMime, readMessage, smtpListener, smtpReply as reply, type SmtpListener } from '../smtp/server.js';
import { sessionLog } from '../smtp/session-log.js';
import { normalizeName } from '../dns/names.js';
import { authenticateInbound } from './authentication.js';
import { recordInbound, type AcceptedRecipient } from './intake.js';
import { matchRoute } from './patterns.js';

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
    maxStoredRawBytes: options.maxStoredRawBytes ?? MB,
    inlineAttachmentBytes: options.inlineAttachmentBytes ?? 256 * 1024,
  };
  const hostname = options.hostname ?? ctx.config.inbound.hostname ?? osHostname();
  const budget = { used: 0, max: Math.max(options.maxBufferedBytes ?? 256 * MB, maxMessageBytes) };
  const guard = connectionGuard({ maxMessageBytes, maxConnectionsPerAddress: options.maxConnectionsPerAddress ?? 10 });
  // The route each accepted recipient of a session's transaction matched, dropped with the session.
  const accepted = new WeakMap<SMTPServerSession, Map<string, AcceptedRecipient>>();

  /** The recipient as accepted, or the reply refusing it. */
  async function recipient(address: string): Promise<AcceptedRecipient | Error> {
    const at = address.lastIndexOf('@');
    const unknown = reply(550, `5.1.1 <${address}>: no such recipient here`);
    if (at <= 0) return unknown;
    const domain = await ctx.store.inbound.receivingDomain(normalizeName(address.slice(at + 1)));
    if (!domain) return unknown;
    const route = matchRoute(await ctx.store.inbound.routesForDomain(domain.name), address.slice(0, at));
    if (!route) return unknown;
    if (route.action === 'refuse') return reply(550, `5.7.1 <${address}>: mail to this address is refused`);
    return { address, domain, route };
  }

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
      accepted.set(session, new Map());
      callback();
    },
    onRcptTo(address, session, callback) {
      const kept = accepted.get(session) ?? new Map<string, AcceptedRecipient>();
      accepted.set(session, kept);
      if (kept.size >= MAX_INBOUND_RECIPIENTS) return callback(reply(452, '4.5.3 Too many recipients'));
      recipient(address.address).then(
        (found) => {
          if (found instanceof Error) return callback(found);
          kept.set(found.address.toLowerCase(), found);
          callback();
        },
        (error: unknown) => {
          ctx.logger.error('inbound receiver: looking up a recipient failed', {
            error: error instanceof Error ? error.message : String(error),
          });
          callback(reply(451, '4.3.0 Temporary failure, try again later'));
        },
      );
    },
    onData(stream, session, callback) {
      readMessage(
        stream,
        callback,
        async (raw) => {
          const count = await receive(raw, session);
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

  /** Records `raw` for the session's accepted recipients; answers how many. */
  async function receive(raw: Buffer, session: SMTPServerSession): Promise<number> {
    const kept = accepted.get(session);
    const recipients = session.envelope.rcptTo.flatMap(({ address }) => kept?.get(address.toLowerCase()) ?? []);
    const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    // Malformed MIME is received all the same, as raw: the tenant decides what it is worth.
    const parsed: ParsedMail | null = await parseReceivedMime(raw).catch(() => null);
    const auth = await authenticateInbound(
      raw,
      { ip: session.remoteAddress, helo: session.hostNameAppearsAs ?? '', mailFrom, mta: hostname },
      ctx.resolver,
    );
    const records = await recordInbound(ctx, { raw, parsed, auth, mailFrom, recipients }, limits);
    for (const record of records) {
      ctx.logger.info('inbound receiver: message received', {
        messageId: record.id,
        subAccountId: record.subAccountId,
        routeId: record.routeId,
        status: record.status,
        size: record.size,
      });
    }
    return records.length;
  }

  guard.attach(server);
  return smtpListener(server, ctx.logger, 'inbound receiver');
}
