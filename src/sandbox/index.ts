/**
 * The sandbox: a DNS server and a mail catcher on loopback, so that a fresh machine can verify a
 * sending domain and see its mail go through the whole pipeline (docs/sandbox.md).
 */
import { contextOf } from '../instance-context.js';
import type { DnsServerAddress } from '../dns/servers.js';
import { startSandboxCatcher } from './catcher.js';
import { startSandboxDns } from './dns-server.js';

export { SANDBOX_MX_HOST, isSandboxName } from './zone.js';
export { verifySandboxDkim, type SandboxDkimResult } from './dkim.js';

/** Options of {@link startSandbox}. */
export interface SandboxOptions {
  /** Newest captured messages kept per account; older ones are deleted as new ones arrive (default 1,000). */
  keep?: number;
}

/** A running sandbox, to pass to `createMailplane({ sandbox })`; `mailplane.close()` closes it. */
export interface Sandbox {
  /** Where the sandbox DNS server listens (UDP and TCP, loopback). */
  readonly dns: DnsServerAddress;
  /** The loopback port of the mail catcher, the MX of every domain. */
  readonly smtpPort: number;
  /** Newest captured messages kept per account. */
  readonly keep: number;
  /**
   * Connects the servers to a mailplane instance (`createMailplane` calls it, with the instance it
   * made): the DNS server answers from its domains and forwards other questions to `upstream`, the
   * catcher stores into it.
   */
  attach(mailplane: object, upstream: readonly DnsServerAddress[]): void;
  /** Stops both servers. */
  close(): Promise<void>;
}

/**
 * Starts the sandbox DNS server and mail catcher on 127.0.0.1. Pass the result to
 * `createMailplane`: its resolver then asks the sandbox DNS server, and delivery connects to the
 * catcher's port (both settings are overridden); the transport must be an MX transport using them.
 *
 * @example
 * const sandbox = await startSandbox();
 * const mailplane = createMailplane({
 *   store, secret, sandbox,
 *   transport: ({ resolver, delivery }) => mxTransport({ resolver, port: delivery.mxPort }),
 * });
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const keep = options.keep ?? 1_000;
  if (!Number.isInteger(keep) || keep < 1)
    throw new Error(`startSandbox: keep must be a positive integer, got ${keep}`);
  const dns = await startSandboxDns();
  const catcher = await startSandboxCatcher().catch(async (error: unknown) => {
    await dns.close();
    throw error;
  });
  return {
    dns: dns.address,
    smtpPort: catcher.port,
    keep,
    attach(mailplane, upstream) {
      const context = contextOf(mailplane);
      dns.attach({ store: context.store.sandbox, config: context.config.domains, upstream, logger: context.logger });
      catcher.attach({ ctx: context, keep });
    },
    close: async () => void (await Promise.all([dns.close(), catcher.close()])),
  };
}
