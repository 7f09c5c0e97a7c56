import type { DnsServerAddress } from './servers.js';

/** How mailplane resolves DNS (domain verification, MX lookups for delivery) and registration dates. */
export interface DnsConfig {
  /** Resolvers to ask; empty means the system's (node:dns `getServers()`). */
  servers: DnsServerAddress[];
  /** Per-attempt timeout in milliseconds. */
  timeoutMs: number;
  /** Further attempts after the first, rotating through the servers. */
  retries: number;
  /** RDAP base URL for domain registration dates; `null` disables the lookup. */
  rdapBaseUrl: string | null;
}

/** Defaults: the system's resolvers, 2 s per attempt, 2 retries, RDAP through rdap.org. */
export const defaultDnsConfig: DnsConfig = {
  servers: [],
  timeoutMs: 2_000,
  retries: 2,
  rdapBaseUrl: 'https://rdap.org',
};

/** Fills the unset fields of a partial configuration with {@link defaultDnsConfig}. */
export function resolveDnsConfig(partial: Partial<DnsConfig> = {}): DnsConfig {
  return { ...defaultDnsConfig, ...partial };
}
