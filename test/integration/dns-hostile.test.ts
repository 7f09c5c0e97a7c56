/**
 * The DNS client against hostile answers, from real servers on loopback (the dns2 test server, and
 * raw UDP/TCP sockets for what dns2 will not send): oversized answers over UDP and TCP, answers
 * with hundreds of records or an over-long TXT record, CNAME chains and loops spread over many
 * queries, and a server that never answers while the retries allowed are many.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import { Packet, type Resource } from 'dns2';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDnsResolver, MAX_CNAME_HOPS, type DnsResolverOptions } from '../../src/dns/index.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';

let dns: TestDnsServer;

beforeAll(async () => {
  dns = await startTestDnsServer();
});
afterAll(async () => {
  await dns.close();
});
beforeEach(() => dns.resetLog());

const resolverFor = (options: DnsResolverOptions = {}) =>
  createDnsResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 500, retries: 1, ...options });

/** `count` TXT records of `length` characters each. */
const txtRecords = (count: number, length: number) =>
  Array.from({ length: count }, (_, i) => String(i % 10).repeat(length));

/** A response to `query` (a raw DNS message) with `answers`, `tc` set as asked. */
function response(query: Buffer, answers: Resource[], tc = false): Buffer {
  const request = Packet.parse(query);
  const reply = Packet.createResponseFromRequest(request);
  reply.header.tc = tc ? 1 : 0;
  reply.answers.push(...answers);
  return reply.toBuffer();
}

/** A raw DNS server on one loopback port: `udp` answers each datagram, `tcp` handles each connection. */
async function rawDnsServer(
  udp: (query: Buffer) => Buffer,
  tcp: (socket: Socket) => void,
): Promise<{ port: number; close(): void }> {
  for (let attempt = 1; ; attempt++) {
    const datagrams: UdpSocket = createSocket('udp4');
    datagrams.on('message', (query, from) => datagrams.send(udp(query), from.port, from.address));
    await new Promise<void>((resolve) => datagrams.bind(0, '127.0.0.1', resolve));
    const port = datagrams.address().port;
    const stream: Server = createServer(tcp);
    try {
      await new Promise<void>((resolve, reject) => stream.once('error', reject).listen(port, '127.0.0.1', resolve));
      return { port, close: () => (datagrams.close(), stream.close()) };
    } catch (error) {
      datagrams.close();
      if (attempt >= 20) throw error;
    }
  }
}

describe('DNS resolver against hostile answers', () => {
  it('refuses a TCP answer over 16 KiB', async () => {
    dns.txt('bulky.h.test', ...txtRecords(70, 250));
    // dns2's encoder needs a good part of a second for answers this size: allow for it.
    const result = await resolverFor({ timeoutMs: 10_000, retries: 0 }).resolveTxt('bulky.h.test');
    expect(result).toMatchObject({
      ok: false,
      reason: 'malformed',
      detail: expect.stringMatching(/^an answer of \d+ bytes, more than the 16384 mailplane reads/),
    });
    expect(dns.log.filter((entry) => entry.name === 'bulky.h.test').map((entry) => entry.transport)).toEqual([
      'udp',
      'tcp',
    ]);
  });

  it('refuses a UDP datagram over 16 KiB from a server that ignores the EDNS size', async () => {
    const records = txtRecords(70, 250).map(
      (text) =>
        ({
          name: 'flood.h.test',
          type: Packet.TYPE.TXT,
          class: Packet.CLASS.IN,
          ttl: 60,
          data: [text],
        }) as unknown as Resource,
    );
    const server = await rawDnsServer(
      (query) => response(query, records),
      (socket) => socket.destroy(),
    );
    try {
      const result = await createDnsResolver({
        servers: [{ host: '127.0.0.1', port: server.port }],
        timeoutMs: 10_000,
        retries: 0,
      }).resolveTxt('flood.h.test');
      expect(result).toMatchObject({
        ok: false,
        reason: 'malformed',
        detail: expect.stringMatching(/more than the 16384 mailplane reads/),
      });
    } finally {
      server.close();
    }
  });

  it('gives up on a TCP answer announced as 65,535 bytes without waiting for its bytes', async () => {
    // UDP says "truncated"; TCP announces the largest answer and then sends nothing more: waiting
    // for it would end in the 10 s timeout, not in a malformed answer.
    const server = await rawDnsServer(
      (query) => response(query, [], true),
      (socket) =>
        socket.once('data', (query) =>
          socket.write(Buffer.concat([Buffer.from([0xff, 0xff]), query.subarray(2, 4), Buffer.from([0x81, 0x80])])),
        ),
    );
    try {
      const result = await createDnsResolver({
        servers: [{ host: '127.0.0.1', port: server.port }],
        timeoutMs: 10_000,
        retries: 0,
      }).resolveTxt('slow.h.test');
      expect(result).toMatchObject({
        ok: false,
        reason: 'malformed',
        detail: expect.stringMatching(/^an answer of 65535 bytes, more than the 16384 mailplane reads/),
      });
    } finally {
      server.close();
    }
  });

  it('keeps at most 100 records of one answer, and of MX the 100 most preferred', async () => {
    dns.set(
      'many.h.test',
      'A',
      Array.from({ length: 300 }, (_, i) => `10.0.${i >> 8}.${i & 255}`),
    );
    // Listed least preferred first, so the cut must come after the sort.
    dns.set(
      'many.h.test',
      'MX',
      Array.from({ length: 300 }, (_, i) => ({ exchange: `mx${i}.h.test`, preference: 300 - i })),
    );
    const resolver = resolverFor({ timeoutMs: 10_000 });
    const a = await resolver.resolveA('many.h.test');
    expect(a).toMatchObject({ ok: true });
    expect(a.ok && a.records).toHaveLength(100);
    const mx = await resolver.resolveMx('many.h.test');
    expect(mx.ok && mx.records.map((r) => r.preference)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('leaves out a TXT record longer than 4096 characters and keeps the others', async () => {
    dns.txt('long.h.test', 'v=spf1 -all', 'x'.repeat(4097), 'y'.repeat(4096));
    const result = await resolverFor({ timeoutMs: 10_000 }).resolveTxt('long.h.test');
    expect(result).toMatchObject({ ok: true, records: ['v=spf1 -all', 'y'.repeat(4096)] });
  });

  it(`ends a CNAME chain spread over many queries after ${MAX_CNAME_HOPS} hops, and a loop spread over two`, async () => {
    for (let i = 0; i < 20; i++) {
      dns.cname(`step${i}.h.test`, `step${i + 1}.h.test`);
      dns.behave(`step${i}.h.test`, 'cname-only');
    }
    dns.txt('step20.h.test', 'far away');
    dns.cname('ping.h.test', 'pong.h.test');
    dns.cname('pong.h.test', 'ping.h.test');
    dns.behave('ping.h.test', 'cname-only');
    dns.behave('pong.h.test', 'cname-only');
    const resolver = resolverFor();
    expect(await resolver.resolveTxt('step0.h.test')).toMatchObject({ ok: false, reason: 'cname-loop' });
    expect(dns.queries()).toBeLessThanOrEqual(MAX_CNAME_HOPS + 1);
    dns.resetLog();
    expect(await resolver.resolveTxt('ping.h.test')).toMatchObject({ ok: false, reason: 'cname-loop' });
    expect(dns.queries()).toBe(2);
  });

  it('ends a lookup at its deadline however many retries are allowed', async () => {
    dns.behave('mute.h.test', 'silent');
    const result = await resolverFor({ timeoutMs: 200, retries: 100, lookupTimeoutMs: 1000 }).resolveTxt('mute.h.test');
    expect(result).toMatchObject({ ok: false, reason: 'timeout' });
    // 1 s of 200 ms attempts: about five, far from the 101 the retries would allow.
    expect(dns.queries('mute.h.test')).toBeLessThanOrEqual(10);
  });
});
