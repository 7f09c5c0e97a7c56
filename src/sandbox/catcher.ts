/**
 * The sandbox mail catcher: an SMTP server on loopback that is the MX of every domain while the
 * sandbox runs. Mail for a domain with receiving enabled goes to the inbound intake, decided and
 * recorded exactly as the inbound listener does it (src/inbound/inbound-intake.ts), so a reply
 * round trip runs on one machine. Anything else it keeps in the store (bounded per account) instead
 * of passing it on, and answers by the recipient's local part so every outcome can be seen locally:
 * `bounce@` 550 5.1.1, `defer@` 421 4.7.0, `complaint@` delivered and then reported as spam.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { silentLogger } from '../logging/logger.js';
import { messageIdOfVerp } from '../delivery/verp.js';
import { DEFAULT_INTAKE_LIMITS, InboundIntake, type InboundIntakeDeps } from '../inbound/inbound-intake.js';
import { msToNs } from '../model/time.js';
import { parseReceivedMime, readMessage, smtpListener, smtpReply, type SmtpListener } from '../smtp/server.js';
import { applySandboxComplaint, type ComplaintDeps } from './complaint.js';
import { SANDBOX_MX_HOST } from './zone.js';

/** What this module uses of the instance: what it calls uses ({@link InboundIntakeDeps}, {@link ComplaintDeps}), and the fields below. */
export interface CatcherDeps extends InboundIntakeDeps, ComplaintDeps {}

/** The catcher's view of mailplane, given once mailplane is built. */
export interface CatcherTarget {
  ctx: CatcherDeps;
  /** Newest messages kept per account. */
  keep: number;
}

const localPart = (address: string) => address.slice(0, address.lastIndexOf('@')).toLowerCase();
/** How long a complaint waits for its message's delivery to be recorded before it is applied anyway. */
const COMPLAINT_WAIT_MS = 30_000;

/** The catcher's answer to a recipient of a domain that does not receive here: chosen by its local part. */
function sandboxAnswer(address: string): Error | null {
  const local = localPart(address);
  if (local === 'bounce') return smtpReply(550, '5.1.1 The sandbox bounces this recipient (bounce@)');
  // smtp-server closes the connection after a 421 (RFC 5321 3.8), as a real MX does: the
  // client must take the 421 as its answer, not the close (adapters/transport/smtp).
  if (local === 'defer') return smtpReply(421, '4.7.0 The sandbox defers this recipient (defer@), try again later');
  return null;
}

/** The running catcher. */
export interface SandboxCatcher {
  readonly port: number;
  attach(target: CatcherTarget): void;
  close(): Promise<void>;
}

/** Starts the catcher on 127.0.0.1, an ephemeral port. Until it is attached it answers 421 (try later). */
export async function startSandboxCatcher(): Promise<SandboxCatcher> {
  let target: CatcherTarget | null = null;
  // Built with the target: receiving needs the instance.
  let intake: InboundIntake | null = null;
  const pending = new Set<NodeJS.Timeout>();
  let closed = false;

  /** Applies the complaint once the delivery is recorded (the order a real provider's report has). */
  function complainLater(messageId: string, raw: Buffer, recipient: string, started = Date.now()): void {
    const timer = setTimeout(() => {
      pending.delete(timer);
      if (closed || !target) return;
      const { ctx } = target;
      void (async () => {
        const found = await ctx.store.messages.getForDelivery(messageId);
        if (found?.message.status !== 'delivered' && Date.now() - started < COMPLAINT_WAIT_MS)
          return complainLater(messageId, raw, recipient, started);
        const outcome = await applySandboxComplaint(ctx, messageId, raw, recipient);
        ctx.logger.info('sandbox: complaint reported', { messageId, outcome });
      })().catch((error: unknown) =>
        ctx.logger.error('sandbox: complaint failed', {
          messageId,
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    }, 100);
    pending.add(timer);
  }

  async function capture(raw: Buffer, mailFrom: string, rcptTo: string[]): Promise<string> {
    if (!target) throw smtpReply(421, '4.3.2 The sandbox is starting, try again later');
    const { ctx, keep } = target;
    const messageId = messageIdOfVerp(mailFrom);
    const found = messageId ? await ctx.store.messages.getForDelivery(messageId) : null;
    if (!found) {
      // Only mailplane's own deliveries are kept: they name the account that may read them.
      ctx.logger.warn('sandbox: received a message that is not a mailplane delivery; discarded', { mailFrom });
      return 'Discarded (not a mailplane message)';
    }
    const mail = await parseReceivedMime(raw);
    const stored = await ctx.store.sandbox.capture(
      {
        accountId: found.message.accountId,
        messageId,
        mailFrom,
        rcptTo,
        subject: mail.subject ?? '',
        raw,
        received: msToNs(ctx.clock.now()),
      },
      keep,
    );
    for (const recipient of rcptTo) if (localPart(recipient) === 'complaint') complainLater(messageId!, raw, recipient);
    return `Captured by the sandbox as message ${stored.id}`;
  }

  const budget = { used: 0, max: 64 * 1024 * 1024 };
  const server = new SMTPServer({
    hideSTARTTLS: true,
    authOptional: true,
    disabledCommands: ['AUTH'],
    size: 30 * 1024 * 1024,
    disableReverseLookup: true,
    logger: false,
    onMailFrom(_address, session, callback) {
      intake?.begin(session);
      callback();
    },
    onRcptTo(address, session, callback) {
      // Until attached nothing receives: the DATA is answered 421 below.
      if (!intake) return callback(sandboxAnswer(address.address));
      // decide() answers a failed lookup itself (451); it never rejects.
      void intake.decide(session, address.address).then((decision) => {
        if (decision === null) return callback(sandboxAnswer(address.address));
        callback(decision instanceof Error ? decision : null);
      });
    },
    onData(stream, session, callback) {
      const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
      const rcptTo = session.envelope.rcptTo.map((r) => r.address);
      const received = intake ? rcptTo.filter((address) => intake!.holds(session, address)) : [];
      const caught = rcptTo.filter((address) => !received.includes(address));
      const failed = (error: unknown) =>
        target?.ctx.logger.error('sandbox: capturing failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      const handle = async (raw: Buffer) => {
        const answers: string[] = [];
        if (received.length > 0) {
          const count = (await intake!.receive(raw, session)).length;
          answers.push(`Received for ${count} recipient${count === 1 ? '' : 's'} of receiving domains`);
        }
        if (caught.length > 0) answers.push(await capture(raw, mailFrom, caught));
        return `2.0.0 ${answers.join('; ')}`;
      };
      readMessage(stream, callback, handle, failed, budget);
    },
  });
  // A client that drops a connection is no news in a sandbox.
  const listener: SmtpListener = smtpListener(server, silentLogger, 'sandbox catcher');
  const bound: AddressInfo = await listener.listen(0, '127.0.0.1');
  return {
    port: bound.port,
    attach(next) {
      target = next;
      intake = new InboundIntake(next.ctx, {
        limits: DEFAULT_INTAKE_LIMITS,
        hostname: SANDBOX_MX_HOST,
        logName: 'sandbox catcher',
      });
    },
    close: async () => {
      closed = true;
      for (const timer of pending) clearTimeout(timer);
      await listener.close();
    },
  };
}
