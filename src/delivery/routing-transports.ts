/**
 * Transports of TPSPs (third-party sending providers): one smart-host-like transport per TPSP,
 * built by the host's {@link TpspTransportFactory} (`MailplaneOptions.tpspTransport`) from the
 * stored record with its password decrypted, kept per TPSP id and rebuilt when the record changes.
 */
import type { MailplaneContext } from '../context.js';
import type { TpspRecord, TpspSecurity } from '../store/ip-pool-store.js';
import type { Transport } from './transport.js';

/** What a TPSP transport needs: the stored record with its password in clear (never logged). */
export interface TpspConnection {
  id: number;
  accountId: number;
  name: string;
  host: string;
  port: number;
  /** `tls`: implicit TLS; `starttls`: STARTTLS required; `none`: plain (opportunistic STARTTLS is the transport's choice). */
  security: TpspSecurity;
  /** Empty when the TPSP takes mail without authentication. */
  username: string;
  password: string;
}

/**
 * Builds the transport of one TPSP, e.g. with `smartHostTransport` from `mailplane/transport/smtp`:
 *
 * @example
 * tpspTransport: (t) => smartHostTransport({ host: t.host, port: t.port, secure: t.security === 'tls',
 *   requireTLS: t.security === 'starttls', ...(t.username && { auth: { user: t.username, pass: t.password } }) })
 */
export type TpspTransportFactory = (tpsp: TpspConnection) => Transport;

interface Entry {
  updated: bigint;
  transport: Transport;
}

const transports = new WeakMap<MailplaneContext, Map<number, Entry>>();

/**
 * The transport of `tpsp`, or `null` when the instance has no `tpspTransport` factory. A TPSP
 * whose record changed since its transport was built (host, credentials) gets a new one; the old
 * one is closed once its in-flight sends have had time to finish.
 */
export function tpspTransportFor(ctx: MailplaneContext, tpsp: TpspRecord): Transport | null {
  const factory = ctx.tpspTransport;
  if (!factory) return null;
  let byId = transports.get(ctx);
  if (!byId) {
    byId = new Map();
    transports.set(ctx, byId);
  }
  const entry = byId.get(tpsp.id);
  if (entry && entry.updated === tpsp.updated) return entry.transport;
  const transport = factory({
    id: tpsp.id,
    accountId: tpsp.accountId,
    name: tpsp.name,
    host: tpsp.host,
    port: tpsp.port,
    security: tpsp.security,
    username: tpsp.username,
    password: tpsp.passwordSealed === '' ? '' : ctx.secrets.decrypt(tpsp.passwordSealed),
  });
  byId.set(tpsp.id, { updated: tpsp.updated, transport });
  if (entry) {
    // Sends already handed to the old transport finish on its pooled connections first.
    setTimeout(() => void entry.transport.close().catch(() => {}), 60_000).unref();
  }
  return transport;
}

/** Closes every TPSP transport of the instance (`mailplane.close()`). */
export async function closeTpspTransports(ctx: MailplaneContext): Promise<void> {
  const byId = transports.get(ctx);
  if (!byId) return;
  transports.delete(ctx);
  await Promise.all([...byId.values()].map((entry) => entry.transport.close().catch(() => {})));
}
