import { getServers } from 'node:dns';
import { isIP } from 'node:net';

/** One DNS server a resolver sends queries to. */
export interface DnsServerAddress {
  /** An IPv4 or IPv6 address literal (no host names: resolving them would need DNS). */
  host: string;
  /** UDP and TCP port; 53 unless told otherwise. */
  port: number;
}

/**
 * Parses one server written as `host`, `host:port`, `[v6]` or `[v6]:port` (the forms
 * `MAILPLANE_DNS_SERVERS` and node's `dns.getServers()` use). Returns `null` for anything else.
 */
export function parseDnsServer(text: string): DnsServerAddress | null {
  const value = text.trim();
  let host = value;
  let port = 53;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(value);
  if (bracketed) {
    host = bracketed[1]!;
    if (bracketed[2] !== undefined) port = Number(bracketed[2]);
  } else if (isIP(value) === 0) {
    // Not a bare address: only `v4:port` remains (a bare v6 address already matched isIP).
    const v4 = /^([0-9.]+):(\d+)$/.exec(value);
    if (!v4) return null;
    host = v4[1]!;
    port = Number(v4[2]);
  }
  if (isIP(host) === 0 || !Number.isInteger(port) || port < 1 || port > 65535) return null;
  return { host, port };
}

/**
 * Parses a comma- or whitespace-separated list of servers, e.g. the value of
 * `MAILPLANE_DNS_SERVERS` (`127.0.0.1:5300, [::1]:5300`). Throws on an entry it cannot read,
 * because silently dropping a misspelt server would send queries somewhere unintended.
 *
 * @example
 * const servers = parseDnsServers(process.env.MAILPLANE_DNS_SERVERS ?? '');
 */
export function parseDnsServers(text: string): DnsServerAddress[] {
  const entries = text.split(/[\s,]+/).filter((entry) => entry.length > 0);
  return entries.map((entry) => {
    const server = parseDnsServer(entry);
    if (!server) throw new Error(`not a DNS server address: ${JSON.stringify(entry)} (expected host or host:port)`);
    return server;
  });
}

/** The resolvers this machine is configured with (`node:dns` `getServers()`), parsed. */
export function systemDnsServers(): DnsServerAddress[] {
  return getServers()
    .map(parseDnsServer)
    .filter((server): server is DnsServerAddress => server !== null);
}
