/**
 * What every mailplane SMTP listener enforces per connection, on top of smtp-server: connections
 * per client address, address lockouts, the SIZE limit declared in `MAIL FROM`, and (on the relay)
 * whether AUTH may happen on this connection at all.
 *
 * smtp-server has no hook before a command runs, so the guard wraps three of a connection's
 * command handlers (`handler_EHLO`, `handler_AUTH`, `handler_MAIL`, public members in its type
 * declarations) on that connection object only, when the connection is accepted. Nothing global
 * is patched; test/integration/smtp-listener-limits.test.ts holds the wire behaviour in place.
 */
import type { SMTPServer, SMTPServerSession } from 'smtp-server';
import { classifyAddress } from '../model/address-class.js';
import { clientKey, type LoginThrottle } from './login-throttle.js';
import { smtpReply } from './server.js';

/** Options of {@link connectionGuard}. */
export interface ConnectionGuardOptions {
  /** Largest message in bytes: a larger `SIZE=` in `MAIL FROM` is refused `552 5.3.4`. */
  maxMessageBytes: number;
  /** Connections at once from one client address (an IPv6 client by its /64); more are refused `421 4.7.0`. */
  maxConnectionsPerAddress: number;
  /** The relay's failed-login accounting: a locked-out address is refused at connect. */
  throttle?: LoginThrottle;
  /**
   * Whether a connection not (yet) under TLS may log in; absent on listeners without AUTH. Where it
   * says no, EHLO does not offer AUTH and AUTH is answered `538 5.7.11 Encryption required`.
   */
  cleartextAuth?: (remoteAddress: string) => boolean;
}

/** The guard of one listener: smtp-server's `onConnect` and `onClose`, once attached to its server. */
export interface ConnectionGuard {
  /** Where the guard finds a session's connection; call right after creating the server. */
  attach(server: SMTPServer): void;
  onConnect(session: SMTPServerSession, callback: (error?: Error | null) => void): void;
  onClose(session: SMTPServerSession): void;
}

/** The members of smtp-server's connection the guard uses. */
interface Connection {
  session: SMTPServerSession;
  secure: boolean;
  send(code: number, data?: string | string[] | null, context?: string | false): void;
  handler_EHLO(command: Buffer, callback: () => void): void;
  handler_AUTH(command: Buffer, callback: () => void): void;
  handler_MAIL(command: Buffer, callback: () => void): void;
}

/** Whether `address` is this host's loopback (127.0.0.0/8, ::1, IPv4-mapped loopback). */
export const isLoopbackAddress = (address: string): boolean => classifyAddress(address) === 'loopback';

/** The `SIZE=` parameter of a `MAIL FROM` command line, if it has one made of digits. */
function declaredSize(command: Buffer): number | undefined {
  const line = command.toString('latin1');
  const params = line.slice(line.lastIndexOf('>') + 1);
  const size = /(?:^|\s)SIZE=(\d{1,20})(?=\s|$)/i.exec(params)?.[1];
  return size === undefined ? undefined : Number(size);
}

/**
 * Creates the guard of one listener. Per-address counts live in the guard and are dropped when
 * an address's last connection closes, so they are bounded by the connections open.
 */
export function connectionGuard(options: ConnectionGuardOptions): ConnectionGuard {
  let server: SMTPServer | undefined;
  const open = new Map<string, number>();
  const counted = new WeakMap<SMTPServerSession, string>();

  function wrap(connection: Connection): void {
    const { handler_EHLO: ehlo, handler_AUTH: auth, handler_MAIL: mail } = connection;
    const mayAuth = () => connection.secure || options.cleartextAuth!(connection.session.remoteAddress);
    if (options.cleartextAuth) {
      connection.handler_EHLO = function (command, callback) {
        if (mayAuth()) return ehlo.call(this, command, callback);
        // EHLO lists AUTH unless the session disables it; it reads the list synchronously.
        const saved = this.session.disabledCommands;
        this.session.disabledCommands = [...(saved ?? server!.options.disabledCommands ?? []), 'AUTH'];
        try {
          ehlo.call(this, command, callback);
        } finally {
          this.session.disabledCommands = saved;
        }
      };
      connection.handler_AUTH = function (command, callback) {
        // Refused before any credential is read, so none is checked or asked for (RFC 4954 §6).
        if (!mayAuth())
          return (this.send(538, '5.7.11 Encryption required for requested authentication mechanism'), callback());
        auth.call(this, command, callback);
      };
    }
    connection.handler_MAIL = function (command, callback) {
      const size = declaredSize(command);
      if (size !== undefined && size > options.maxMessageBytes) {
        return (
          this.send(552, `5.3.4 Message size exceeds fixed maximum message size (${options.maxMessageBytes} bytes)`),
          callback()
        );
      }
      mail.call(this, command, callback);
    };
  }

  return {
    attach(created) {
      server = created;
    },
    onConnect(session, callback) {
      const key = clientKey(session.remoteAddress);
      if (options.throttle && options.throttle.lockedFor(key) > 0)
        return callback(smtpReply(421, '4.7.0 Too many failed logins from your address, try again later'));
      const count = open.get(key) ?? 0;
      if (count >= options.maxConnectionsPerAddress)
        return callback(smtpReply(421, '4.7.0 Too many connections from your address, try again later'));
      open.set(key, count + 1);
      counted.set(session, key);
      for (const connection of server!.connections as Set<unknown> as Set<Connection>) {
        if (connection.session === session) wrap(connection);
      }
      callback();
    },
    onClose(session) {
      const key = counted.get(session);
      if (key === undefined) return;
      counted.delete(session);
      const count = (open.get(key) ?? 1) - 1;
      if (count > 0) open.set(key, count);
      else open.delete(key);
    },
  };
}
