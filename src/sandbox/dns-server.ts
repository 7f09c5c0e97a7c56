import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';
import { Packet, type Resource } from 'dns2';
import type { DomainRecordsConfig } from '../domain/config.js';
import type { DnsServerAddress } from '../dns/servers.js';
import type { Logger } from '../logging/logger.js';
import type { SandboxStore } from '../store/index.js';
import { listenDns, toResource, type DnsHandler, type DnsListener } from './dns-listener.js';
import { isSandboxName, sandboxRecords } from './zone.js';

/** What the sandbox DNS server answers from, given once mailplane is built. */
export interface SandboxZoneSource {
  store: SandboxStore;
  config: DomainRecordsConfig;
  /** Where questions about other names go: the resolvers mailplane would use without the sandbox. */
  upstream: readonly DnsServerAddress[];
  logger: Logger;
}

const TYPE_NAMES = new Map<number, string>(Object.entries(Packet.TYPE).map(([name, code]) => [code as number, name]));
const RCODE = { SERVFAIL: 2, NXDOMAIN: 3 };
const FORWARD_TIMEOUT_MS = 4_000;

/** Relays `query` as it is to `server` over UDP and answers the reply's bytes, or `null` on a timeout or error. */
function relay(server: DnsServerAddress, query: Buffer): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const socket = createSocket(isIP(server.host) === 6 ? 'udp6' : 'udp4');
    const finish = (reply: Buffer | null) => {
      clearTimeout(timer);
      socket.close();
      resolve(reply);
    };
    const timer = setTimeout(() => finish(null), FORWARD_TIMEOUT_MS);
    socket.on('error', () => finish(null));
    socket.on('message', (message) => {
      if (message.length >= 2 && message.readUInt16BE(0) === query.readUInt16BE(0)) finish(message);
    });
    socket.connect(server.port, server.host, () => socket.send(query, (error) => error && finish(null)));
  });
}

/**
 * Starts the sandbox DNS server on loopback. Until {@link SandboxDnsServer.attach} gives it the
 * store, every question is answered SERVFAIL (the resolver retries, as with any server starting up).
 */
export async function startSandboxDns(): Promise<SandboxDnsServer> {
  let source: SandboxZoneSource | null = null;

  async function answer(request: Packet): Promise<Packet | Buffer> {
    const response = Packet.createResponseFromRequest(request);
    response.header.ra = 1;
    const question = request.questions[0];
    if (!source || !question) return ((response.header.rcode = RCODE.SERVFAIL), response);
    const type = TYPE_NAMES.get(question.type) ?? '';
    if (type !== 'MX' && !isSandboxName(question.name, source.config)) {
      for (const server of source.upstream) {
        const reply = await relay(server, request.toBuffer());
        if (reply) return reply;
      }
      return ((response.header.rcode = RCODE.SERVFAIL), response);
    }
    response.header.aa = 1;
    let name = question.name;
    // Like an authoritative server (RFC 1034 section 4.3.2): a CNAME is followed within the zone.
    for (let hops = 0; hops < 4; hops++) {
      const records = await sandboxRecords(source.store, source.config, name, type);
      response.answers.push(...records.map((record): Resource => toResource(name, record)));
      const cname = records.find((record) => record.type === 'CNAME');
      if (!cname || type === 'CNAME' || !isSandboxName(cname.value as string, source.config)) break;
      name = cname.value as string;
    }
    return response;
  }

  const handle: DnsHandler = (request, send) => {
    answer(request)
      .catch((error: unknown) => {
        source?.logger.warn('sandbox DNS: answering failed', {
          error: error instanceof Error ? error.message : String(error),
        });
        const failed = Packet.createResponseFromRequest(request);
        failed.header.rcode = RCODE.SERVFAIL;
        return failed;
      })
      .then((response) => Promise.resolve(send(response)))
      .catch(() => undefined);
  };
  const listener: DnsListener = await listenDns(handle);
  return {
    address: { host: '127.0.0.1', port: listener.port },
    attach: (zone) => void (source = zone),
    close: () => listener.close(),
  };
}

/** The running sandbox DNS server. */
export interface SandboxDnsServer {
  /** Where it listens, UDP and TCP. */
  readonly address: DnsServerAddress;
  /** Starts answering from `source`. */
  attach(source: SandboxZoneSource): void;
  close(): Promise<void>;
}
