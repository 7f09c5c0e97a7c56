/**
 * Transports of TPSPs (third-party sending providers): one smart-host-like transport per TPSP,
 * built by the host's {@link TpspTransportFactory} (`MailplaneOptions.tpspTransport`) from the
 * stored record with its password decrypted, kept per TPSP id and rebuilt when the record changes.
 */
import type { SecretBox } from '../crypto/secrets.js';
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

/** How long a replaced transport stays open for the sends already handed to it. */
const RETIRED_TRANSPORT_GRACE_MS = 60_000;

/**
 * The TPSP transports of one mailplane instance, by TPSP id. Part of its `DeliveryRouting`
 * service; closing it closes every transport it built, the replaced ones still in their grace too.
 */
export class TpspTransports {
  private readonly byId = new Map<number, Entry>();
  /** Replaced transports waiting for their in-flight sends, with the timer that closes each. */
  private readonly retired = new Map<Transport, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly deps: { factory: TpspTransportFactory | undefined; secrets: SecretBox }) {}

  /**
   * The transport of `tpsp`, or `null` when the instance has no `tpspTransport` factory (or is
   * closed). A TPSP whose record changed since its transport was built (host, credentials) gets a
   * new one; the old one is closed once its in-flight sends have had time to finish.
   */
  transportFor(tpsp: TpspRecord): Transport | null {
    const { factory, secrets } = this.deps;
    if (!factory || this.closed) return null;
    const entry = this.byId.get(tpsp.id);
    if (entry && entry.updated === tpsp.updated) return entry.transport;
    const transport = factory({
      id: tpsp.id,
      accountId: tpsp.accountId,
      name: tpsp.name,
      host: tpsp.host,
      port: tpsp.port,
      security: tpsp.security,
      username: tpsp.username,
      password: tpsp.passwordSealed === '' ? '' : secrets.decrypt(tpsp.passwordSealed),
    });
    this.byId.set(tpsp.id, { updated: tpsp.updated, transport });
    if (entry) this.retire(entry.transport);
    return transport;
  }

  /** Sends already handed to a replaced transport finish on its pooled connections first. */
  private retire(transport: Transport): void {
    const timer = setTimeout(() => {
      this.retired.delete(transport);
      void transport.close().catch(() => {});
    }, RETIRED_TRANSPORT_GRACE_MS);
    timer.unref();
    this.retired.set(transport, timer);
  }

  /** Closes every transport built (`mailplane.close()`, after the job runner stopped); later calls build none. */
  async close(): Promise<void> {
    this.closed = true;
    const transports = [...this.byId.values()].map((entry) => entry.transport);
    for (const [transport, timer] of this.retired) {
      clearTimeout(timer);
      transports.push(transport);
    }
    this.byId.clear();
    this.retired.clear();
    await Promise.all(transports.map((transport) => transport.close().catch(() => {})));
  }
}
