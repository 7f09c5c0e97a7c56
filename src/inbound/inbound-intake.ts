/**
 * The two steps of receiving a message that every SMTP server taking mail for receiving domains
 * shares (the inbound MX listener, src/inbound/receiver.ts, and the sandbox catcher,
 * src/sandbox/catcher.ts): deciding a recipient at `RCPT TO` (the route that takes it, or the refusal
 * a sender must see: `550 5.1.1` unknown, `550 5.7.1` a `refuse` route) and, once the DATA is read,
 * authenticating, parsing and recording the message for the session's accepted recipients.
 */
import type { ParsedMail } from 'mailparser';
import type { SMTPServerSession } from 'smtp-server';
import { parseReceivedMime, smtpReply as reply } from '../smtp/server.js';
import type { InboundMessageRecord } from '../store/inbound-store.js';
import { authenticateInbound } from './authentication.js';
import { recordInbound, type AcceptedRecipient, type IntakeLimits, type IntakeDeps } from './intake.js';
import { matchRoute } from './patterns.js';
import type { DnsResolver } from '../dns/resolver.js';
import type { Logger } from '../logging/logger.js';
import type { InboundRecipientDirectory } from '../domain/recipient-directory.js';

/** What this module uses of the instance: what it calls uses ({@link IntakeDeps}), and the fields below. */
export interface InboundIntakeDeps extends IntakeDeps {
  readonly logger: Logger;
  readonly resolver: DnsResolver;
  readonly inboundRecipients: InboundRecipientDirectory;
}

const MB = 1024 * 1024;

/** The limits of an intake not told otherwise (the listener's defaults; docs/inbound.md, "The listener"). */
export const DEFAULT_INTAKE_LIMITS: IntakeLimits = { maxStoredRawBytes: MB, inlineAttachmentBytes: 256 * 1024 };

/** What an {@link InboundIntake} is built with. */
export interface InboundIntakeOptions {
  limits: IntakeLimits;
  /** The receiving host: the `mta` of the authentication results. */
  hostname: string;
  /** Names the server in log lines (`inbound receiver`, `sandbox catcher`). */
  logName: string;
}

/**
 * The decision on one `RCPT TO`: the recipient accepted, the reply that refuses it, or `null` when
 * its domain does not receive mail here (the listener refuses it as unknown; the catcher keeps it
 * in the sandbox instead).
 */
export type RecipientDecision = AcceptedRecipient | Error | null;

/** Receiving for one SMTP server: see the module comment. */
export class InboundIntake {
  /** The recipients each session's current transaction accepted, dropped with the session. */
  readonly #accepted = new WeakMap<SMTPServerSession, Map<string, AcceptedRecipient>>();

  constructor(
    private readonly ctx: InboundIntakeDeps,
    private readonly options: InboundIntakeOptions,
  ) {}

  /** A new transaction (`MAIL FROM`): the recipients of the session's previous one are forgotten. */
  begin(session: SMTPServerSession): void {
    this.#accepted.set(session, new Map());
  }

  /** Recipients the session's transaction has accepted so far. */
  acceptedCount(session: SMTPServerSession): number {
    return this.#accepted.get(session)?.size ?? 0;
  }

  /** Whether the session's transaction accepted `address` for receiving. */
  holds(session: SMTPServerSession, address: string): boolean {
    return this.#accepted.get(session)?.has(address.toLowerCase()) ?? false;
  }

  /**
   * Decides `address` for the session's transaction and keeps it when accepted. A failed lookup is
   * answered `451 4.3.0`, so the sender tries again later.
   */
  async decide(session: SMTPServerSession, address: string): Promise<RecipientDecision> {
    let decision: RecipientDecision;
    try {
      decision = await this.#recipient(address);
    } catch (error) {
      this.ctx.logger.error(`${this.options.logName}: looking up a recipient failed`, {
        error: error instanceof Error ? error.message : String(error),
      });
      return reply(451, '4.3.0 Temporary failure, try again later');
    }
    if (decision !== null && !(decision instanceof Error)) {
      const kept = this.#accepted.get(session) ?? new Map<string, AcceptedRecipient>();
      this.#accepted.set(session, kept);
      kept.set(decision.address.toLowerCase(), decision);
    }
    return decision;
  }

  /**
   * Authenticates, parses and records `raw` for the session's accepted recipients, in one
   * transaction (src/inbound/intake.ts); answers the records. A failure throws: answer `451 4.3.0`.
   */
  async receive(raw: Buffer, session: SMTPServerSession): Promise<InboundMessageRecord[]> {
    const kept = this.#accepted.get(session);
    const recipients = session.envelope.rcptTo.flatMap(({ address }) => kept?.get(address.toLowerCase()) ?? []);
    if (recipients.length === 0) return [];
    const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    // Malformed MIME is received all the same, as raw: the tenant decides what it is worth.
    const parsed: ParsedMail | null = await parseReceivedMime(raw).catch(() => null);
    const auth = await authenticateInbound(
      raw,
      { ip: session.remoteAddress, helo: session.hostNameAppearsAs ?? '', mailFrom, mta: this.options.hostname },
      this.ctx.resolver,
    );
    const records = await recordInbound(this.ctx, { raw, parsed, auth, mailFrom, recipients }, this.options.limits);
    for (const record of records) {
      this.ctx.logger.info(`${this.options.logName}: message received`, {
        messageId: record.id,
        subAccountId: record.subAccountId,
        routeId: record.routeId,
        status: record.status,
        size: record.size,
      });
    }
    return records;
  }

  /** The recipient as accepted, the reply refusing it, or `null` when its domain does not receive here. */
  async #recipient(address: string): Promise<RecipientDecision> {
    const at = address.lastIndexOf('@');
    if (at <= 0) return null;
    const receiving = await this.ctx.inboundRecipients.lookup(address.slice(at + 1));
    if (!receiving) return null;
    const route = matchRoute(receiving.routes, address.slice(0, at));
    if (!route) return unknownRecipient(address);
    if (route.action === 'refuse') return reply(550, `5.7.1 <${address}>: mail to this address is refused`);
    return { address, domain: receiving.domain, route };
  }
}

/** The answer to a recipient nobody here receives mail for. */
export const unknownRecipient = (address: string): Error => reply(550, `5.1.1 <${address}>: no such recipient here`);
