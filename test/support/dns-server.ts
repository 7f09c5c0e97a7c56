/**
 * A small authoritative DNS server for tests: a real dns2 server (UDP and TCP on the same
 * 127.0.0.1 port) serving a zone the test controls, with switches for the failures a resolver
 * client must survive (SERVFAIL, silence, dropped packets, malformed answers, CNAME loops).
 */
import { Packet, type Resource } from 'dns2';
import { listenDns, toResource as toZoneResource, type ZoneRecord } from '../../src/sandbox/dns-listener.js';
import type { RemoteInfo } from 'node:dgram';

/** Record types the test zone serves. */
export type TestRecordType = 'A' | 'AAAA' | 'CNAME' | 'MX' | 'NS' | 'TXT';

/** A TXT value: one string, or the character-strings of one record (each at most 255 bytes). */
export type TxtValue = string | string[];

/** How the server treats queries for one name. */
export type Behaviour =
  | 'normal'
  | 'servfail'
  | 'refused'
  /** Never answers. */
  | 'silent'
  /** Answers with five bytes: the query id and nothing readable. */
  | 'garbage'
  /** Answers with a record cut off in the middle. */
  | 'corrupt'
  /** Answers only the CNAME at the name, without following it (an authoritative server that does not hold the target). */
  | 'cname-only'
  /** Drops this many queries, then answers normally. */
  | { drop: number };

/** One query the server received. */
export interface LoggedQuery {
  name: string;
  type: string;
  transport: 'udp' | 'tcp';
}

interface StoredRecord {
  type: TestRecordType;
  ttl: number;
  value: TxtValue | { exchange: string; preference: number };
}

/** The running server and its controls. */
export interface TestDnsServer {
  /** Where it listens (UDP and TCP). */
  readonly host: string;
  readonly port: number;
  /** `host:port`, the form MAILPLANE_DNS_SERVERS takes. */
  readonly address: string;
  /** Every query received, oldest first. */
  readonly log: LoggedQuery[];
  /** Replaces the records of `type` at `name` (no values: removes them). */
  set(
    name: string,
    type: TestRecordType,
    values: readonly (TxtValue | { exchange: string; preference: number })[],
    ttl?: number,
  ): void;
  /** Replaces the TXT records at `name`. */
  txt(name: string, ...records: TxtValue[]): void;
  /** Makes `name` a CNAME to `target`. */
  cname(name: string, target: string, ttl?: number): void;
  /** Removes the records of `type` at `name`, or all of them. */
  remove(name: string, type?: TestRecordType): void;
  /** Sets how queries for `name` are treated. */
  behave(name: string, behaviour: Behaviour): void;
  /** Queries received for `name` (and `type`), since the start or the last {@link resetLog}. */
  queries(name?: string, type?: string): number;
  resetLog(): void;
  /** The SOA MINIMUM (negative-caching TTL) of negative answers; default 60 s. */
  negativeTtl: number;
  close(): Promise<void>;
}

const TYPE_NAMES = new Map<number, string>(Object.entries(Packet.TYPE).map(([name, code]) => [code as number, name]));
const key = (name: string) => name.toLowerCase().replace(/\.$/, '');

const toResource = (name: string, record: StoredRecord): Resource => toZoneResource(name, record as ZoneRecord);

/**
 * Starts the server on 127.0.0.1, an ephemeral port.
 *
 * @example
 * const dns = await startTestDnsServer();
 * dns.txt('_dmarc.example.com', 'v=DMARC1; p=none');
 * const resolver = createDnsResolver({ servers: [{ host: dns.host, port: dns.port }] });
 */
export async function startTestDnsServer(): Promise<TestDnsServer> {
  const zone = new Map<string, StoredRecord[]>();
  const behaviours = new Map<string, Behaviour>();
  const log: LoggedQuery[] = [];

  function soaFor(name: string): Resource {
    const apex = name.split('.').slice(-2).join('.') || 'test';
    return {
      name: apex,
      type: Packet.TYPE.SOA,
      class: Packet.CLASS.IN,
      ttl: server.negativeTtl,
      primary: `ns.${apex}`,
      admin: `hostmaster.${apex}`,
      serial: 1,
      refresh: 3600,
      retry: 600,
      expiration: 86400,
      minimum: server.negativeTtl,
    } as Resource;
  }

  function answer(request: Packet): Packet {
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    response.header.ra = 1;
    const question = request.questions[0];
    if (!question) return response;
    const wanted = TYPE_NAMES.get(question.type);
    // Like an authoritative server (RFC 1034 §4.3.2), follow CNAMEs inside the zone, stopping
    // at a name already visited so a loop shows up in the answer instead of hanging here.
    let current = key(question.name);
    const visited = new Set<string>();
    for (;;) {
      visited.add(current);
      const records = zone.get(current) ?? [];
      const matching = records.filter((record) => record.type === wanted);
      if (matching.length > 0) {
        response.answers.push(...matching.map((record) => toResource(current, record)));
        return response;
      }
      const cname = wanted === 'CNAME' ? undefined : records.find((record) => record.type === 'CNAME');
      if (!cname) {
        if (!zone.has(current)) response.header.rcode = 3;
        response.authorities.push(soaFor(current));
        return response;
      }
      response.answers.push(toResource(current, cname));
      const target = key(cname.value as string);
      if (visited.has(target)) return response;
      current = target;
    }
  }

  function handle(request: Packet, send: (response: Packet | Buffer) => Promise<Buffer> | void, client: unknown): void {
    const question = request.questions[0];
    const name = key(question?.name ?? '');
    const transport =
      typeof (client as RemoteInfo).port === 'number' && !('remotePort' in (client as object)) ? 'udp' : 'tcp';
    log.push({ name, type: TYPE_NAMES.get(question?.type ?? 0) ?? String(question?.type), transport });
    const behaviour = behaviours.get(name) ?? 'normal';
    const reply = (response: Packet | Buffer) => void Promise.resolve(send(response)).catch(() => undefined);
    if (behaviour === 'silent') return;
    if (typeof behaviour === 'object') {
      if (behaviour.drop > 0) {
        behaviours.set(name, { drop: behaviour.drop - 1 });
        return;
      }
    }
    if (behaviour === 'servfail' || behaviour === 'refused') {
      const response = Packet.createResponseFromRequest(request);
      response.header.rcode = behaviour === 'servfail' ? 2 : 5;
      return reply(response);
    }
    if (behaviour === 'garbage') {
      const bytes = Buffer.from([0, 0, 0x81, 0x80, 0]);
      bytes.writeUInt16BE(request.header.id, 0);
      return reply(bytes);
    }
    if (behaviour === 'cname-only') {
      const response = Packet.createResponseFromRequest(request);
      const cname = (zone.get(name) ?? []).find((record) => record.type === 'CNAME');
      if (cname) response.answers.push(toResource(name, cname));
      return reply(response);
    }
    const response = answer(request);
    if (behaviour === 'corrupt') {
      const whole = response.toBuffer();
      return reply(whole.subarray(0, whole.length - 3));
    }
    reply(response);
  }

  const { port, close } = await listenDns(handle);

  const server: TestDnsServer = {
    host: '127.0.0.1',
    port,
    address: `127.0.0.1:${port}`,
    log,
    negativeTtl: 60,
    set(name, type, values, ttl = 300) {
      const others = (zone.get(key(name)) ?? []).filter((record) => record.type !== type);
      const records = [...others, ...values.map((value) => ({ type, ttl, value }))];
      if (records.length > 0) zone.set(key(name), records);
      else zone.delete(key(name));
    },
    txt(name, ...records) {
      server.set(name, 'TXT', records);
    },
    cname(name, target, ttl = 300) {
      server.set(name, 'CNAME', [target], ttl);
    },
    remove(name, type) {
      if (type) server.set(name, type, []);
      else zone.delete(key(name));
    },
    behave(name, behaviour) {
      behaviours.set(key(name), behaviour);
    },
    queries(name, type) {
      return log.filter(
        (entry) => (name === undefined || entry.name === key(name)) && (type === undefined || entry.type === type),
      ).length;
    },
    resetLog() {
      log.length = 0;
    },
    async close() {
      await close();
    },
  };
  return server;
}
