import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { DnsResolver } from '../../../src/dns/resolver.js';
import {
  noReply,
  type DeliveryResult,
  type DeliveryRoute,
  type OutboundMessage,
  type Transport,
} from '../../../src/delivery/transport.js';
import { sendRaw } from './send.js';
import { transportDeadlines, type SmtpTimeoutOptions } from './smtp-deadlines.js';
import { SmtpPool } from './smtp-pool.js';

/** Options of {@link mxTransport}. */
export interface MxTransportOptions extends SmtpTimeoutOptions {
  /** Resolves the recipient domains' MX and A records (mailplane's `ctx.resolver`). */
  resolver: Pick<DnsResolver, 'resolveMx' | 'resolveA'>;
  /** Port of the MX hosts: 25 (default); a loopback sink's port in tests. */
  port?: number;
  /** EHLO name when the route names none (default the host name; it should be the source address's PTR name). */
  ehloName?: string;
  /**
   * Connections at once to one MX host from one source address (default 10, as many MTAs use
   * toward one destination; Postfix allows 20). Each has one message awaiting its reply at a time,
   * so this bounds what one destination gets per second. Until a transaction has finished on them,
   * at most `initialConnectionsPerHost` (default 2) are opened, and a message waits for one only
   * while the host finishes a transaction at least every `stallTimeoutMs` (default 10 s): see
   * `SmtpPool` in `smtp-pool.ts`, the connection pool per destination (internal). A route's
   * traffic-shaping limits (`DeliveryRoute.limits`: connections, messages per connection, connect
   * and idle timeouts) override these for its source and destination.
   */
  maxConnectionsPerHost?: number;
  initialConnectionsPerHost?: number;
  stallTimeoutMs?: number;
  /** Mail exchanger addresses tried in one attempt (default 5, as Postfix's `smtp_mx_address_limit`). */
  maxMxAddresses?: number;
  /**
   * Sessions (connections that got a reply from the server) in one attempt (default 2, as Postfix's
   * `smtp_mx_session_limit`): a domain with a thousand MX hosts answering `421` costs two.
   */
  maxMxSessions?: number;
  /** How long an MX host that failed the STARTTLS handshake is spoken to in plain text (default 1 h). */
  tlsFallbackMs?: number;
  /** Connection pools kept open at once; the least recently used is closed beyond this (default 200). */
  maxPools?: number;
}

interface Hop {
  host: string;
  address: string;
}

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/** Most MX addresses remembered as failing TLS (each is retried in plain text for `tlsFallbackMs`). */
const MAX_PLAIN_FALLBACKS = 10_000;

/**
 * Direct delivery to the recipient domain's mail exchangers (RFC 5321 section 5): MX records in
 * preference order, the domain's own A record when it has no MX (the implicit MX), and a null MX
 * (RFC 7505) as a permanent failure. Connections are pooled per (MX address, source address, EHLO
 * name) and reused; STARTTLS is used when offered (opportunistic: certificates are not verified,
 * as for MTA-to-MTA mail without MTA-STS or DANE), and a host whose TLS handshake fails is retried
 * in plain text, as Postfix does. A refused or dropped connection, a timeout or a 421 moves on to
 * the next MX; any other reply decides.
 *
 * @example
 * createMailplane({ ..., transport: (ctx) => mxTransport({ resolver: ctx.resolver, port: ctx.config.delivery.mxPort }) });
 */
export function mxTransport(options: MxTransportOptions): Transport {
  const port = options.port ?? 25;
  const pools = new Map<string, SmtpPool>();
  const plainUntil = new Map<string, number>();

  const poolFor = (hop: Hop, route: DeliveryRoute, plain: boolean): SmtpPool => {
    const name = route.ehloName ?? options.ehloName ?? hostname();
    const key = `${hop.address}|${port}|${route.localAddress ?? ''}|${name}|${plain ? 'plain' : 'tls'}`;
    // Traffic shaping's limits for this source and destination win over the transport's defaults.
    const limits = {
      maxConnections: route.limits?.maxConnections ?? options.maxConnectionsPerHost ?? 10,
      ...(route.limits?.maxMessagesPerConnection !== undefined && {
        maxMessagesPerConnection: route.limits.maxMessagesPerConnection,
      }),
      ...(route.limits?.idleTimeoutMs !== undefined && { idleTimeoutMs: route.limits.idleTimeoutMs }),
      gate: route.connections,
    };
    let pool = pools.get(key);
    if (pool) {
      // Most recently used last, so the first entry is the one to close when over the limit.
      pools.delete(key);
      pools.set(key, pool);
      pool.setLimits(limits);
    } else {
      if (pools.size >= (options.maxPools ?? 200)) {
        const [oldestKey, oldest] = pools.entries().next().value!;
        pools.delete(oldestKey);
        // Messages being sent finish; any still queued in it fail as soft bounces and are retried.
        oldest.close();
      }
      pool = new SmtpPool({
        host: hop.address,
        port,
        ignoreTLS: plain,
        name,
        ...(route.localAddress && { localAddress: route.localAddress }),
        ...limits,
        ...(options.initialConnectionsPerHost !== undefined && {
          initialConnections: options.initialConnectionsPerHost,
        }),
        ...(options.stallTimeoutMs !== undefined && { stallTimeoutMs: options.stallTimeoutMs }),
        rejectUnauthorized: false,
        ...(isIP(hop.host) === 0 && { servername: hop.host }),
        ...transportDeadlines(options),
        ...(route.limits?.connectTimeoutMs !== undefined && { connectionTimeoutMs: route.limits.connectTimeoutMs }),
      });
      pools.set(key, pool);
    }
    return pool;
  };

  /** The hosts to try, in order, or the result that ends the attempt (no such domain, null MX, DNS failure). */
  async function hopsFor(domain: string): Promise<Hop[] | DeliveryResult> {
    if (/^\[.*\]$/.test(domain)) return [{ host: domain, address: domain.slice(1, -1).replace(/^ipv6:/i, '') }];
    const mx = await options.resolver.resolveMx(domain);
    let exchanges: string[];
    if (mx.ok) {
      const records = [...mx.records].sort((a, b) => a.preference - b.preference);
      if (records.every((r) => r.exchange === '' || r.exchange === '.')) {
        return {
          kind: 'hard',
          smtpCode: null,
          enhancedCode: '5.1.10',
          text: `${domain} accepts no mail (null MX, RFC 7505)`,
        };
      }
      exchanges = records.map((r) => r.exchange.replace(/\.$/, '').toLowerCase()).filter((e) => e !== '');
    } else if (mx.reason === 'nodata') {
      exchanges = [domain]; // no MX: the domain itself is the implicit MX (RFC 5321 5.1)
    } else if (mx.reason === 'nxdomain') {
      return {
        kind: 'hard',
        smtpCode: null,
        enhancedCode: '5.1.2',
        text: `DNS: the recipient domain ${domain} does not exist (NXDOMAIN)`,
      };
    } else {
      return noReply(`DNS: MX lookup for ${domain} failed (${mx.reason}: ${mx.detail})`);
    }
    // Addresses are looked up host by host in preference order, only until enough are known: a
    // domain with a thousand MX records costs a handful of lookups, not a thousand.
    const maxAddresses = options.maxMxAddresses ?? 5;
    const hops: Hop[] = [];
    let temporary: string | null = null;
    for (const host of new Set(exchanges)) {
      if (hops.length >= maxAddresses) break;
      if (isIP(host)) {
        hops.push({ host, address: host });
        continue;
      }
      const a = await options.resolver.resolveA(host);
      if (a.ok) for (const address of a.records.slice(0, maxAddresses - hops.length)) hops.push({ host, address });
      else if (a.reason !== 'nxdomain' && a.reason !== 'nodata')
        temporary = `DNS: A lookup for ${host} failed (${a.reason})`;
    }
    if (hops.length > 0) return hops;
    if (temporary) return noReply(temporary);
    return {
      kind: 'hard',
      smtpCode: null,
      enhancedCode: '5.4.4',
      text: `DNS: no mail exchanger of ${domain} has an address (${exchanges.join(', ')})`,
    };
  }

  async function sendToDomain(message: OutboundMessage, to: string[], route: DeliveryRoute): Promise<DeliveryResult> {
    const domain = domainOf(to[0]!);
    const hops = await hopsFor(domain);
    if (!Array.isArray(hops)) return hops;
    let last: DeliveryResult = noReply(`no mail exchanger of ${domain} could be reached`);
    let sessions = 0;
    for (const hop of hops) {
      if (sessions >= (options.maxMxSessions ?? 2)) break;
      const until = plainUntil.get(hop.address);
      if (until !== undefined && until <= Date.now()) plainUntil.delete(hop.address);
      const plain = until !== undefined && until > Date.now();
      let result = await sendRaw(
        poolFor(hop, route, plain),
        { from: message.envelope.from, to },
        message.parts,
        hop.host,
      );
      if (result.tls && !plain) {
        // Bounded like the pools: a flood of distinct broken MX hosts forgets the oldest first.
        if (plainUntil.size >= MAX_PLAIN_FALLBACKS) plainUntil.delete(plainUntil.keys().next().value!);
        plainUntil.set(hop.address, Date.now() + (options.tlsFallbackMs ?? 3_600_000));
        result = await sendRaw(poolFor(hop, route, true), { from: message.envelope.from, to }, message.parts, hop.host);
      }
      const { tls: _tls, ...clean } = result;
      last = clean;
      if (clean.smtpCode !== null) sessions += 1;
      // A busy host hands the message back to wait its turn, not to the next host.
      const tryNext =
        clean.kind === 'soft' && !clean.notAttempted && (clean.smtpCode === null || clean.smtpCode === 421);
      if (!tryNext) return clean;
    }
    return last;
  }

  return {
    async send(message, route) {
      // One transaction per recipient domain: the message's own recipient decides the outcome;
      // cc and bcc copies on other domains are delivered alongside, best effort.
      const byDomain = new Map<string, string[]>();
      for (const rcpt of message.envelope.to) {
        const list = byDomain.get(domainOf(rcpt)) ?? [];
        list.push(rcpt);
        byDomain.set(domainOf(rcpt), list);
      }
      const [primary, ...others] = [...byDomain.values()];
      const results = await Promise.all([
        sendToDomain(message, primary!, route),
        ...others.map((to) => sendToDomain(message, to, route)),
      ]);
      return results[0]!;
    },
    async close() {
      for (const pool of pools.values()) pool.close();
      pools.clear();
    },
  };
}
