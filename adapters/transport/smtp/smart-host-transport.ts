import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { DeliveryResult, DeliveryRoute, OutboundMessage, Transport } from '../../../src/delivery/transport.js';
import { sendRaw } from './send.js';
import { transportDeadlines, type SmtpTimeoutOptions } from './smtp-deadlines.js';
import { SmtpPool } from './smtp-pool.js';

/** Options of {@link smartHostTransport}. */
export interface SmartHostTransportOptions extends SmtpTimeoutOptions {
  host: string;
  /** Default 587 (25 for `secure: false` relays that say so, 465 with `secure: true`). */
  port?: number;
  /** Implicit TLS (port 465). Default false: STARTTLS when offered. */
  secure?: boolean;
  /** Refuse to send unless STARTTLS succeeds (default true when `auth` is given). */
  requireTLS?: boolean;
  auth?: { user: string; pass: string };
  /** Name to greet with (default the host name). */
  ehloName?: string;
  /** Open connections (default 5). */
  maxConnections?: number;
  /** Verify the relay's certificate (default true). */
  rejectUnauthorized?: boolean;
}

/**
 * A transport that relays every message through the user's own MTA (a smart host) over pooled,
 * reused connections. The relay's reply is classified like an MX's: a relay that queues the
 * message answers 250 (Delivered means "accepted by the relay" here), and its later bounces come
 * back to the VERP address.
 *
 * @example
 * createMailplane({ ..., transport: smartHostTransport({ host: 'smtp.internal', port: 587, auth: { user, pass } }) });
 */
export function smartHostTransport(options: SmartHostTransportOptions): Transport {
  const pools = new Map<string, SmtpPool>();
  const poolFor = (route: DeliveryRoute): SmtpPool => {
    const key = `${route.localAddress ?? ''}|${route.ehloName ?? ''}`;
    let pool = pools.get(key);
    if (!pool) {
      pool = new SmtpPool({
        host: options.host,
        port: options.port ?? (options.secure ? 465 : 587),
        secure: options.secure ?? false,
        requireTLS: options.requireTLS ?? options.auth !== undefined,
        ...(options.auth && { auth: options.auth }),
        name: route.ehloName ?? options.ehloName ?? hostname(),
        ...(route.localAddress && { localAddress: route.localAddress }),
        maxConnections: options.maxConnections ?? 5,
        rejectUnauthorized: options.rejectUnauthorized ?? true,
        ...(isIP(options.host) === 0 && { servername: options.host }),
        ...transportDeadlines(options),
      });
      pools.set(key, pool);
    }
    return pool;
  };
  return {
    async send(message: OutboundMessage, route: DeliveryRoute): Promise<DeliveryResult> {
      const { tls: _tls, ...result } = await sendRaw(poolFor(route), message.envelope, message.parts, options.host);
      return result;
    },
    async close() {
      for (const pool of pools.values()) pool.close();
      pools.clear();
    },
  };
}
