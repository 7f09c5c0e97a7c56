/**
 * A dns2 server on one loopback port for UDP and TCP, and the record encoding it answers with.
 * Shared by the sandbox DNS server and the test suite's DNS server.
 */
import dns2, { Packet, type DnsServer, type Resource } from 'dns2';

/** A record to put in an answer. */
export type ZoneRecord =
  | { type: 'TXT'; ttl: number; value: string | string[] }
  | { type: 'CNAME' | 'NS' | 'A' | 'AAAA'; ttl: number; value: string }
  | { type: 'MX'; ttl: number; value: { exchange: string; preference: number } };

/** What dns2 hands a server's `handle`. */
export type DnsHandler = (
  request: Packet,
  send: (response: Packet | Buffer) => Promise<Buffer> | void,
  client: unknown,
) => void;

/** `record` at `name` as a dns2 resource; TXT strings longer than 255 bytes are split as zone software does. */
export function toResource(name: string, record: ZoneRecord): Resource {
  const base = { name, type: Packet.TYPE[record.type], class: Packet.CLASS.IN, ttl: record.ttl };
  switch (record.type) {
    case 'TXT': {
      const strings = (Array.isArray(record.value) ? record.value : [record.value]).flatMap((text) => {
        const bytes = Buffer.from(text);
        const chunks: Buffer[] = [];
        for (let at = 0; at < bytes.length || at === 0; at += 255) chunks.push(bytes.subarray(at, at + 255));
        return chunks;
      });
      return { ...base, data: strings } as unknown as Resource;
    }
    case 'CNAME':
      return { ...base, domain: record.value } as Resource;
    case 'NS':
      return { ...base, ns: record.value } as Resource;
    case 'MX':
      return { ...base, exchange: record.value.exchange, priority: record.value.preference } as Resource;
    default:
      return { ...base, address: record.value } as Resource;
  }
}

/** A server listening on `127.0.0.1:port` over UDP and TCP. */
export interface DnsListener {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Starts `handle` on 127.0.0.1, an ephemeral port, UDP and TCP. UDP takes a free port; TCP must
 * then bind the same number, which another socket may hold already (the UDP and TCP port spaces
 * are separate): it tries again with a new port when it is.
 */
export async function listenDns(handle: DnsHandler, host = '127.0.0.1'): Promise<DnsListener> {
  for (let attempt = 1; ; attempt++) {
    const udp: DnsServer = dns2.createServer({ udp: true, handle });
    const tcp: DnsServer = dns2.createServer({ tcp: true, handle });
    const addresses = await udp.listen({ udp: { port: 0, address: host } });
    const port = addresses.udp!.port;
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.once('listening', () => resolve());
        void tcp.listen({ tcp: { port, address: host } });
      });
      return { port, close: async () => void (await Promise.all([udp.close(), tcp.close()])) };
    } catch (error) {
      await udp.close();
      if ((error as { code?: string }).code !== 'EADDRINUSE' || attempt >= 20) throw error;
    }
  }
}
