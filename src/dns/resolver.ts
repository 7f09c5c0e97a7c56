import { isIP } from 'node:net';
import type { Packet } from 'dns2';
import { systemClock, type Clock } from '../model/time.js';
import {
  interpretResponse,
  type DnsFailureReason,
  type DnsLookupResult,
  type DnsRecordValues,
  type MxRecord,
} from './answer.js';
import { TtlCache } from './cache.js';
import { isValidName, normalizeName } from './names.js';
import { systemDnsServers, type DnsServerAddress } from './servers.js';
import { exchangeTcp, exchangeUdp } from './transport.js';
import { encodeQuery, isTruncated, RCODE, type DnsRecordType } from './wire.js';

/** Settings of {@link createDnsResolver}; every field has a production default. */
export interface DnsResolverOptions {
  /** Recursive resolvers to ask, in order of preference. Default: the system's (`dns.getServers()`). */
  servers?: readonly DnsServerAddress[];
  /** How long one attempt waits for its answer. Default 2000 ms. */
  timeoutMs?: number;
  /** Further attempts after the first one times out or fails; they rotate through `servers`. Default 2. */
  retries?: number;
  /** Ceiling on the whole lookup (every attempt, TCP fallback and CNAME hop). Default `timeoutMs * (retries + 1) * 2`. */
  lookupTimeoutMs?: number;
  /** Longest time an answer is cached, whatever its TTL. Default 300 000 ms (5 minutes). */
  cacheTtlCapMs?: number;
  /** Longest time a "does not exist" answer is cached, whatever its SOA says. Default 30 000 ms. */
  negativeCacheTtlCapMs?: number;
  /** Most answers kept in the cache; the least recently used go first. 0 disables caching. Default 1000. */
  cacheMaxEntries?: number;
  /** Time source for cache expiry. Default: the system clock. */
  clock?: Clock;
}

/** Per-lookup options. */
export interface DnsLookupOptions {
  /** Skip the cache for this lookup (its answer is still cached for the next). */
  fresh?: boolean;
}

/** A DNS client with bounded timeouts, retries, TCP fallback, coalescing and a TTL cache. */
export interface DnsResolver {
  /** The servers queries go to. */
  readonly servers: readonly DnsServerAddress[];
  /** Records of one type at `name`, following CNAMEs (except for type CNAME itself). */
  resolve<T extends DnsRecordType>(
    name: string,
    type: T,
    options?: DnsLookupOptions,
  ): Promise<DnsLookupResult<DnsRecordValues[T]>>;
  /** TXT records, each one's character-strings joined into one string. */
  resolveTxt(name: string, options?: DnsLookupOptions): Promise<DnsLookupResult<string>>;
  /** The CNAME target at `name` itself (lower-case, no trailing dot). */
  resolveCname(name: string, options?: DnsLookupOptions): Promise<DnsLookupResult<string>>;
  /** Name-server host names. */
  resolveNs(name: string, options?: DnsLookupOptions): Promise<DnsLookupResult<string>>;
  /** Mail exchangers, most preferred (lowest preference value) first. */
  resolveMx(name: string, options?: DnsLookupOptions): Promise<DnsLookupResult<MxRecord>>;
  /** IPv4 addresses. */
  resolveA(name: string, options?: DnsLookupOptions): Promise<DnsLookupResult<string>>;
  /** IPv6 addresses. */
  resolveAaaa(name: string, options?: DnsLookupOptions): Promise<DnsLookupResult<string>>;
  /** Forgets every cached answer. */
  clearCache(): void;
}

type AnyResult = DnsLookupResult<unknown>;
type ServerStep = { kind: 'response'; packet: Packet } | { kind: 'failure'; reason: DnsFailureReason; detail: string };

const describe = (server: DnsServerAddress): string =>
  server.host.includes(':') ? `[${server.host}]:${server.port}` : `${server.host}:${server.port}`;

/**
 * Creates a DNS resolver client. It speaks to the configured recursive resolvers only (never to
 * public defaults), bounds every lookup in time, and caches answers by their TTL, capped.
 *
 * @example
 * const resolver = createDnsResolver({ servers: parseDnsServers('127.0.0.1:5300'), timeoutMs: 1500 });
 * const txt = await resolver.resolveTxt('mp1._domainkey.example.com');
 * if (txt.ok) console.log(txt.records);
 */
export function createDnsResolver(options: DnsResolverOptions = {}): DnsResolver {
  const servers = [...(options.servers ?? systemDnsServers())];
  if (servers.length === 0)
    throw new Error('createDnsResolver: no DNS servers configured and none found on the system');
  for (const server of servers) {
    // A host name would need DNS to reach DNS; a bad port would fail every query silently.
    if (isIP(server.host) === 0 || !Number.isInteger(server.port) || server.port < 1 || server.port > 65535) {
      throw new Error(`createDnsResolver: ${JSON.stringify(server)} is not an IP address and port`);
    }
  }
  const timeoutMs = options.timeoutMs ?? 2000;
  const retries = Math.max(0, Math.floor(options.retries ?? 2));
  const lookupTimeoutMs = options.lookupTimeoutMs ?? timeoutMs * (retries + 1) * 2;
  const positiveCapMs = options.cacheTtlCapMs ?? 300_000;
  const negativeCapMs = options.negativeCacheTtlCapMs ?? 30_000;
  const cache = new TtlCache<AnyResult>(options.cacheMaxEntries ?? 1000, options.clock ?? systemClock);
  const inFlight = new Map<string, Promise<AnyResult>>();

  async function askServers(name: string, type: DnsRecordType, deadline: number): Promise<ServerStep> {
    let last: ServerStep = { kind: 'failure', reason: 'timeout', detail: `no answer within ${lookupTimeoutMs} ms` };
    for (let attempt = 0; attempt <= retries; attempt++) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      const server = servers[attempt % servers.length]!;
      const query = encodeQuery(name, type);
      let outcome = await exchangeUdp(server, query, Math.min(timeoutMs, remaining));
      if (outcome.kind === 'response' && isTruncated(outcome.packet)) {
        outcome = await exchangeTcp(server, query, Math.max(1, Math.min(timeoutMs, deadline - Date.now())));
      }
      if (outcome.kind === 'response') {
        const rcode = outcome.packet.header.rcode;
        const serverFault = rcode === RCODE.SERVFAIL || rcode === RCODE.REFUSED;
        // Another server may well answer where this one failed; the same server again rarely does.
        if (!serverFault || servers.length === 1 || attempt === retries) return outcome;
        last = {
          kind: 'failure',
          reason: rcode === RCODE.REFUSED ? 'refused' : 'servfail',
          detail: `from ${describe(server)}`,
        };
        continue;
      }
      last =
        outcome.kind === 'timeout'
          ? {
              kind: 'failure',
              reason: 'timeout',
              detail: `no answer from ${describe(server)} within ${timeoutMs} ms (${attempt + 1} attempts)`,
            }
          : { kind: 'failure', reason: outcome.kind, detail: `${outcome.detail} (from ${describe(server)})` };
    }
    return last;
  }

  async function lookup(name: string, type: DnsRecordType): Promise<AnyResult> {
    const deadline = Date.now() + lookupTimeoutMs;
    const seen = new Set([name]);
    const chain: string[] = [];
    let ttl = Number.POSITIVE_INFINITY;
    let current = name;
    for (;;) {
      const step = await askServers(current, type, deadline);
      if (step.kind === 'failure') return { ok: false, name, chain, reason: step.reason, detail: step.detail, ttl: 0 };
      const found = interpretResponse(step.packet, current, type, seen);
      chain.push(...found.chain);
      ttl = Math.min(ttl, found.ttl);
      if (found.kind === 'records')
        return { ok: true, name, chain, records: found.records, ttl: Number.isFinite(ttl) ? ttl : 0 };
      if (found.kind === 'failure')
        return {
          ok: false,
          name,
          chain,
          reason: found.reason,
          detail: found.detail,
          ttl: Number.isFinite(ttl) ? ttl : 0,
        };
      current = found.next;
    }
  }

  function remember(key: string, result: AnyResult): void {
    if (result.ok) cache.set(key, result, Math.min(result.ttl * 1000, positiveCapMs));
    else if (result.reason === 'nxdomain' || result.reason === 'nodata')
      cache.set(key, result, Math.min(result.ttl * 1000, negativeCapMs));
  }

  async function resolve(
    rawName: string,
    type: DnsRecordType,
    lookupOptions: DnsLookupOptions = {},
  ): Promise<AnyResult> {
    const name = normalizeName(rawName);
    if (!isValidName(name)) {
      return {
        ok: false,
        name,
        chain: [],
        reason: 'invalid-name',
        detail: `${JSON.stringify(rawName.slice(0, 300))} is not a valid DNS name`,
        ttl: 0,
      };
    }
    const key = `${type} ${name}`;
    if (!lookupOptions.fresh) {
      const cached = cache.get(key);
      if (cached) return cached;
    }
    // Concurrent lookups of the same name share one query instead of each sending their own.
    const pending = inFlight.get(key);
    if (pending) return pending;
    const started = lookup(name, type).then((result) => {
      remember(key, result);
      return result;
    });
    inFlight.set(key, started);
    try {
      return await started;
    } finally {
      inFlight.delete(key);
    }
  }

  const typed =
    <T extends DnsRecordType>(type: T) =>
    (name: string, lookupOptions?: DnsLookupOptions) =>
      resolve(name, type, lookupOptions) as Promise<DnsLookupResult<DnsRecordValues[T]>>;

  return {
    servers,
    resolve: (name, type, lookupOptions) => resolve(name, type, lookupOptions) as never,
    resolveTxt: typed('TXT'),
    resolveCname: typed('CNAME'),
    resolveNs: typed('NS'),
    resolveMx: typed('MX'),
    resolveA: typed('A'),
    resolveAaaa: typed('AAAA'),
    clearCache: () => cache.clear(),
  };
}
