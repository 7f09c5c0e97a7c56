/**
 * One log line and one count per SMTP session of a listener, when it closes: the client address,
 * whether it logged in, how many messages it had accepted and how long it lasted (never the
 * username, the password or a message).
 */
import type { SMTPServerSession } from 'smtp-server';
import type { Logger } from '../logging/logger.js';
import type { MailplaneMetrics } from '../metrics/metrics.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface SessionLogDeps {
  readonly logger: Logger;
  readonly metrics: MailplaneMetrics;
}

/** The session hooks of one listener; its sessions are tracked here until they close. */
export interface SessionLog {
  /** From `onConnect`. */
  opened(session: SMTPServerSession): void;
  /** A message of the session was accepted (answered 250). */
  accepted(session: SMTPServerSession): void;
  /** From `onClose`: writes the line. */
  closed(session: SMTPServerSession): void;
}

/** The {@link SessionLog} of the listener named `listener` (`smtp relay`, `bounce receiver`). */
export function sessionLog(ctx: Pick<SessionLogDeps, 'logger' | 'metrics'>, listener: string): SessionLog {
  // Per listener, dropped at close: a session that never closes is one the server still holds.
  const open = new Map<string, { startedAt: number; accepted: number }>();
  return {
    opened: (session) => void open.set(session.id, { startedAt: performance.now(), accepted: 0 }),
    accepted: (session) => {
      const entry = open.get(session.id);
      if (entry) entry.accepted += 1;
    },
    closed: (session) => {
      const entry = open.get(session.id);
      open.delete(session.id);
      ctx.metrics.smtpSessions.inc({ listener });
      ctx.logger.info(`${listener}: session closed`, {
        client: session.remoteAddress,
        authenticated: session.user !== undefined,
        messagesAccepted: entry?.accepted ?? 0,
        durationMs: entry ? Math.round(performance.now() - entry.startedAt) : 0,
        sessionId: session.id,
      });
    },
  };
}
