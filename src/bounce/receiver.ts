/**
 * The bounce and complaint receiver: the SMTP server behind the return-path hosts (the MX of
 * `DomainRecordsConfig.returnPathTarget`, where each sending domain's `mp-bounces` CNAME points).
 * Asynchronous bounces come to a message's VERP address `b+<message id>@<return-path host>`;
 * complaints (ARF) come to a feedback address registered with the mailbox providers. Each is read
 * (src/bounce/reports.ts) and applied to its message (src/bounce/inbound.ts).
 *
 * It accepts mail for nothing else (550 at RCPT TO, so it is neither a relay nor a source of
 * backscatter): a VERP address must name an existing message and the return-path host of that
 * message's domain. It needs no login: bounces come from any server on the internet.
 */
import { sessionLog } from '../smtp/session-log.js';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { contextOf } from '../instance-context.js';
import type { Mailplane } from '../mailplane.js';
import { messageIdOfVerp } from '../delivery/verp.js';
import { connectionGuard } from '../smtp/connection-guard.js';
import { parseReceivedMime, readMessage, smtpListener, smtpReply as reply, type SmtpListener } from '../smtp/server.js';
import { applyReport } from './inbound.js';
import { quotedMessageId, readReport } from './reports.js';

/** Options of {@link createBounceReceiver}. */
export interface BounceReceiverOptions {
  /** Addresses that receive complaint reports (ARF), e.g. `fbl@bounces.example.net`; compared case-insensitively. */
  feedbackAddresses?: readonly string[];
  /** Largest report accepted, in bytes (default 10 MB: reports quote the original message). */
  maxMessageBytes?: number;
  /** PEM key and certificate: offers STARTTLS to sending servers. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** Name in the greeting (default the host name). */
  hostname?: string;
  /** Connections at once (default 100); more are answered 421. */
  maxClients?: number;
  /** Connections at once from one client address, an IPv6 client by its /64 (default 20); more are answered `421 4.7.0`. */
  maxConnectionsPerAddress?: number;
  /**
   * Bytes of reports being received held at once, all connections together (default 128 MB, and
   * never below `maxMessageBytes`); a report that does not fit is read, discarded and answered `452 4.3.1`.
   */
  maxBufferedBytes?: number;
}

/** A receiver listening on one port (25 on the internet). */
export type BounceReceiver = SmtpListener;

/**
 * Creates the bounce and complaint receiver of a mailplane instance.
 *
 * @example
 * const receiver = createBounceReceiver(mailplane, { feedbackAddresses: ['fbl@bounces.example.net'] });
 * await receiver.listen(25);
 */
export function createBounceReceiver(mailplane: Mailplane, options: BounceReceiverOptions = {}): BounceReceiver {
  const ctx = contextOf(mailplane);
  const feedback = new Set((options.feedbackAddresses ?? []).map((a) => a.toLowerCase()));
  const maxMessageBytes = options.maxMessageBytes ?? 10 * 1024 * 1024;
  const budget = { used: 0, max: Math.max(options.maxBufferedBytes ?? 128 * 1024 * 1024, maxMessageBytes) };
  const guard = connectionGuard({ maxMessageBytes, maxConnectionsPerAddress: options.maxConnectionsPerAddress ?? 20 });

  /** Whether `address` is a VERP address of an existing message on its domain's return-path host. */
  async function isVerpOfMessage(address: string): Promise<boolean> {
    const messageId = messageIdOfVerp(address);
    if (!messageId) return false;
    const found = await ctx.store.messages.getForDelivery(messageId);
    if (!found || found.batch.domainId === null) return false;
    const domain = await ctx.store.domains.get(found.batch.subAccountId, found.batch.domainId);
    return (
      domain !== null &&
      address.slice(address.lastIndexOf('@') + 1).toLowerCase() === domain.returnPathHost.toLowerCase()
    );
  }

  const sessions = sessionLog(ctx, 'bounce receiver');
  const server = new SMTPServer({
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : { hideSTARTTLS: true }),
    ...(options.hostname !== undefined && { name: options.hostname }),
    authOptional: true,
    disabledCommands: ['AUTH'],
    size: maxMessageBytes,
    maxClients: options.maxClients ?? 100,
    disableReverseLookup: true,
    logger: false,
    onConnect: (session, callback) => (sessions.opened(session), guard.onConnect(session, callback)),
    onClose: (session) => (guard.onClose(session), sessions.closed(session)),
    onRcptTo(address, _session, callback) {
      const to = address.address.toLowerCase();
      if (feedback.has(to)) return callback();
      isVerpOfMessage(to).then(
        (ok) => callback(ok ? undefined : reply(550, '5.1.1 No such recipient here')),
        () => callback(reply(451, '4.3.0 Temporary failure, try again later')),
      );
    },
    onData(stream, session, callback) {
      const failed = (error: unknown) =>
        ctx.logger.error('bounce receiver: applying a report failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      readMessage(
        stream,
        callback,
        async (raw) => (await receive(raw, session), sessions.accepted(session), '2.0.0 Report received'),
        failed,
        budget,
      );
    },
  });

  async function receive(raw: Buffer, session: SMTPServerSession): Promise<void> {
    const report = readReport(await parseReceivedMime(raw));
    for (const { address } of session.envelope.rcptTo) {
      // A bounce names its message by the VERP address; a complaint by the original it quotes.
      const messageId = messageIdOfVerp(address) ?? quotedMessageId(raw);
      const outcome = messageId ? await applyReport(ctx, messageId, report) : 'unknown-message';
      ctx.logger.info('bounce receiver: report', { kind: report.kind, outcome, ...(messageId && { messageId }) });
      ctx.metrics.bounceReports.inc({ kind: report.kind, outcome });
    }
  }

  guard.attach(server);
  return smtpListener(server, ctx.logger, 'bounce receiver');
}
