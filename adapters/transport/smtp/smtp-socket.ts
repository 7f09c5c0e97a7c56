/**
 * The socket under an SMTP connection: TCP or implicit TLS (port 465), and the STARTTLS upgrade
 * (RFC 3207). Failures are {@link SmtpError}s: `ETIMEDOUT` or `ESOCKET` when the server cannot be
 * reached, `ETLS` for anything that goes wrong before a TLS handshake completes (the MX transport
 * then speaks to that host in plain text for a while).
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { SmtpError } from './smtp-protocol.js';

/** Where to connect and how to check TLS. */
export interface SocketOptions {
  /** Address (or name) to connect to. */
  host: string;
  port: number;
  /** Implicit TLS from the first byte (port 465). */
  secure?: boolean;
  /** TLS server name (SNI and certificate check); not an IP address. */
  servername?: string;
  /** Verify the server's certificate (default true). */
  rejectUnauthorized?: boolean;
  /** Source address to bind. */
  localAddress?: string;
  connectionTimeoutMs: number;
}

const tlsOptions = (o: SocketOptions) => ({
  rejectUnauthorized: o.rejectUnauthorized ?? true,
  ...(o.servername && { servername: o.servername }),
});

/**
 * Settles once `socket` emits `ready`, or fails with the error `failure` makes of what went wrong
 * (an error, an early close, the timeout); the socket is destroyed on failure.
 */
function whenReady<T extends Socket>(
  socket: T,
  ready: string,
  timeoutMs: number,
  failure: (cause: 'error' | 'close' | 'timeout', error?: Error) => SmtpError,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => settle(failure('timeout')), timeoutMs);
    const onReady = () => settle();
    const onError = (error: Error) => settle(failure('error', error));
    const onClose = () => settle(failure('close'));
    const settle = (error?: SmtpError) => {
      clearTimeout(timer);
      socket.removeListener(ready, onReady);
      socket.removeListener('error', onError);
      socket.removeListener('close', onClose);
      if (!error) return resolve(socket);
      socket.on('error', () => {});
      socket.destroy();
      reject(error);
    };
    socket.once(ready, onReady);
    socket.once('error', onError);
    socket.once('close', onClose);
  });
}

/** Connects to the server (over TLS from the start with `secure`). */
export function openSocket(o: SocketOptions): Promise<Socket> {
  const target = { host: o.host, port: o.port, ...(o.localAddress && { localAddress: o.localAddress }) };
  const socket = o.secure ? tlsConnect({ ...target, ...tlsOptions(o) }) : netConnect(target);
  return whenReady(socket, o.secure ? 'secureConnect' : 'connect', o.connectionTimeoutMs, (cause, error) => {
    if (cause === 'timeout')
      return new SmtpError(
        'ETIMEDOUT',
        `Connection timeout: ${o.host}:${o.port} did not answer in ${o.connectionTimeoutMs} ms`,
      );
    const text = error?.message ?? 'the connection closed';
    return new SmtpError(o.secure ? 'ETLS' : 'ESOCKET', text);
  });
}

/** Hands `plain` (after the server's 220 to STARTTLS) to TLS; on failure both sockets are destroyed. */
export async function upgradeToTls(
  plain: Socket,
  o: SocketOptions & { handshakeTimeoutMs: number },
): Promise<TLSSocket> {
  const secure = tlsConnect({ socket: plain, ...tlsOptions(o) });
  try {
    return await whenReady(
      secure,
      'secureConnect',
      o.handshakeTimeoutMs,
      (cause, error) =>
        new SmtpError(
          'ETLS',
          cause === 'timeout'
            ? 'TLS handshake timeout'
            : `TLS handshake failed: ${error?.message ?? 'the connection closed'}`,
        ),
    );
  } catch (error) {
    plain.destroy();
    throw error;
  }
}
