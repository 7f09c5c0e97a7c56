import { createSocket } from 'node:dgram';
import { isIP, connect } from 'node:net';
import { decodeMessage, MAX_ANSWER_BYTES, tooLarge, type EncodedQuery } from './wire.js';
import type { Packet } from 'dns2';
import type { DnsServerAddress } from './servers.js';

/** How one exchange with one server ended. */
export type ExchangeOutcome =
  | { kind: 'response'; packet: Packet }
  | { kind: 'timeout' }
  | { kind: 'malformed'; detail: string }
  | { kind: 'unreachable'; detail: string };

/**
 * Sends one query over UDP and waits at most `timeoutMs` for its answer. The socket is
 * connected, so the kernel discards datagrams from any other address and reports a closed port
 * (ICMP port unreachable) as an error instead of letting the query run into its timeout.
 */
export function exchangeUdp(
  server: DnsServerAddress,
  query: EncodedQuery,
  timeoutMs: number,
): Promise<ExchangeOutcome> {
  return new Promise((resolve) => {
    const socket = createSocket(isIP(server.host) === 6 ? 'udp6' : 'udp4');
    let settled = false;
    const finish = (outcome: ExchangeOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.close();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    socket.on('error', (error) => finish({ kind: 'unreachable', detail: error.message }));
    socket.on('message', (message) => {
      const decoded = decodeMessage(message, query);
      // A datagram that is not the answer (stale reply, wrong id) is ignored: the real answer may still come.
      if (decoded.kind !== 'foreign') finish(decoded);
    });
    socket.connect(server.port, server.host, () => {
      socket.send(query.message, (error) => {
        if (error) finish({ kind: 'unreachable', detail: error.message });
      });
    });
  });
}

/**
 * Sends one query over TCP (RFC 7766), for answers too large for a UDP datagram. The length prefix
 * says how much is coming: an answer announced over {@link MAX_ANSWER_BYTES} is given up on at
 * once, before its bytes are read.
 */
export function exchangeTcp(
  server: DnsServerAddress,
  query: EncodedQuery,
  timeoutMs: number,
): Promise<ExchangeOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ host: server.host, port: server.port });
    let settled = false;
    let received = Buffer.alloc(0);
    const finish = (outcome: ExchangeOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    socket.on('error', (error) => finish({ kind: 'unreachable', detail: error.message }));
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(query.message.length);
      socket.write(Buffer.concat([length, query.message]));
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 2) return;
      const expected = received.readUInt16BE(0);
      if (expected > MAX_ANSWER_BYTES) return finish({ kind: 'malformed', detail: tooLarge(expected) });
      if (received.length < expected + 2) return;
      const decoded = decodeMessage(received.subarray(2, expected + 2), query);
      // Over TCP there is no one else on the connection: an answer to another question is broken.
      finish(decoded.kind === 'foreign' ? { kind: 'malformed', detail: 'an answer to another question' } : decoded);
    });
    socket.on('end', () => finish({ kind: 'malformed', detail: 'the connection closed before a complete answer' }));
  });
}
