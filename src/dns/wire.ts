import { randomInt } from 'node:crypto';
import { Packet, type Question, type Resource } from 'dns2';
import { normalizeName } from './names.js';

/** DNS response codes (RFC 1035 §4.1.1); dns2 has them at runtime but not in its types. */
export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;

/** Record types the resolver asks for. */
export type DnsRecordType = 'A' | 'AAAA' | 'CNAME' | 'MX' | 'NS' | 'TXT';

/** What one received message turned out to be. */
export type DecodedMessage =
  | { kind: 'response'; packet: Packet }
  /** Not an answer to this query (wrong id, not a response, other question): keep waiting. */
  | { kind: 'foreign' }
  /** An answer to this query that cannot be read. */
  | { kind: 'malformed'; detail: string };

// EDNS payload size of the 2020 DNS flag day: large enough for a 2048-bit DKIM key, small enough
// to avoid IP fragmentation; larger answers come back truncated and are fetched over TCP.
const EDNS_PAYLOAD_SIZE = 1232;
/**
 * Largest answer read, over UDP or TCP. Real answers mailplane asks for are well under it (a busy
 * apex TXT set is a few kilobytes); a hostile zone's 64 KiB answer would cost ~50 ms of parsing on
 * the event loop per lookup (dns2 reads it a byte per call) and its records memory in the cache.
 */
export const MAX_ANSWER_BYTES = 16_384;
const HEADER_LENGTH = 12;
// Smallest possible question (root name + type + class) and resource record (root name, type,
// class, ttl, rdlength): used to refuse a header whose counts cannot fit in the message before
// the parser spends time on thousands of phantom records.
const MIN_QUESTION_LENGTH = 5;
const MIN_RECORD_LENGTH = 11;

/** A query message, ready to send, and the id its answer must carry. */
export interface EncodedQuery {
  id: number;
  name: string;
  type: DnsRecordType;
  message: Buffer;
}

/** Builds a recursive query for one name and type, with a CSPRNG id (RFC 5452) and EDNS. */
export function encodeQuery(name: string, type: DnsRecordType): EncodedQuery {
  const packet = new Packet();
  const id = randomInt(0x10000);
  packet.header.id = id;
  packet.header.rd = 1;
  packet.questions.push({ name, type: Packet.TYPE[type], class: Packet.CLASS.IN } as Question);
  packet.additionals.push({
    name: '',
    type: Packet.TYPE.EDNS,
    class: EDNS_PAYLOAD_SIZE,
    ttl: 0,
    rdata: [],
  } as unknown as Resource);
  return { id, name, type, message: packet.toBuffer() };
}

/** Why an answer of `bytes` was not read. */
export const tooLarge = (bytes: number): string =>
  `an answer of ${bytes} bytes, more than the ${MAX_ANSWER_BYTES} mailplane reads`;

/**
 * Reads a received message as the answer to `query`. Never throws: dns2's parser throws on
 * truncated headers and silently drops records it cannot decode, so both are detected here and
 * reported as `malformed` rather than trusted; so is an answer over {@link MAX_ANSWER_BYTES}.
 */
export function decodeMessage(buffer: Buffer, query: EncodedQuery): DecodedMessage {
  if (buffer.length < 2 || buffer.readUInt16BE(0) !== query.id) return { kind: 'foreign' };
  if (buffer.length < HEADER_LENGTH) return { kind: 'malformed', detail: `a ${buffer.length}-byte message` };
  if ((buffer[2]! & 0x80) === 0) return { kind: 'foreign' };
  if (buffer.length > MAX_ANSWER_BYTES) return { kind: 'malformed', detail: tooLarge(buffer.length) };
  const qd = buffer.readUInt16BE(4);
  const records = buffer.readUInt16BE(6) + buffer.readUInt16BE(8) + buffer.readUInt16BE(10);
  if (HEADER_LENGTH + qd * MIN_QUESTION_LENGTH + records * MIN_RECORD_LENGTH > buffer.length) {
    return { kind: 'malformed', detail: 'record counts larger than the message' };
  }
  let packet: Packet;
  try {
    packet = Packet.parse(buffer);
  } catch (error) {
    return { kind: 'malformed', detail: (error as Error).message };
  }
  const { header } = packet;
  const decoded =
    packet.questions.length === header.qdcount &&
    packet.answers.length === header.ancount &&
    packet.authorities.length === header.nscount &&
    packet.additionals.length === header.arcount;
  if (!decoded) return { kind: 'malformed', detail: 'records that cannot be decoded' };
  const question = packet.questions[0];
  if (
    question &&
    (normalizeName(question.name) !== normalizeName(query.name) || question.type !== Packet.TYPE[query.type])
  ) {
    return { kind: 'foreign' };
  }
  return { kind: 'response', packet };
}

/** True when the server said the answer did not fit and must be asked for over TCP. */
export function isTruncated(packet: Packet): boolean {
  return packet.header.tc === 1;
}
