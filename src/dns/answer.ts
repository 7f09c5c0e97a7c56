import { Packet, type Resource } from 'dns2';
import { normalizeName } from './names.js';
import { RCODE, type DnsRecordType } from './wire.js';

/** Why a lookup produced no records. */
export type DnsFailureReason =
  /** The name does not exist (NXDOMAIN). */
  | 'nxdomain'
  /** The name exists but has no record of the asked type. */
  | 'nodata'
  /** The server failed (SERVFAIL, or another error code such as FORMERR/NOTIMP). */
  | 'servfail'
  /** The server refused to answer (REFUSED): typically a resolver that does not serve this client. */
  | 'refused'
  /** No answer within the time and retries allowed. */
  | 'timeout'
  /** The server could not be reached at all (port closed, network down). */
  | 'unreachable'
  /** The answer could not be read. */
  | 'malformed'
  /** CNAME records loop, or chain further than the resolver follows. */
  | 'cname-loop'
  /** The name itself cannot be queried (empty, too long, bad characters). */
  | 'invalid-name';

/** An MX record, as delivery needs it. */
export interface MxRecord {
  exchange: string;
  preference: number;
}

/** The record value each type resolves to. */
export interface DnsRecordValues {
  A: string;
  AAAA: string;
  CNAME: string;
  MX: MxRecord;
  NS: string;
  TXT: string;
}

/** The outcome of one lookup. `name` is the queried name, `chain` the CNAME targets followed from it. */
export type DnsLookupResult<T> =
  | { ok: true; name: string; chain: string[]; records: T[]; ttl: number }
  | { ok: false; name: string; chain: string[]; reason: DnsFailureReason; detail: string; ttl: number };

/** What one response says about the question, before any further query. */
export type Interpretation =
  | { kind: 'records'; chain: string[]; records: unknown[]; ttl: number }
  | { kind: 'failure'; chain: string[]; reason: DnsFailureReason; detail: string; ttl: number }
  /** The answer stopped at a CNAME whose target it does not cover: ask again for `next`. */
  | { kind: 'follow'; chain: string[]; next: string; ttl: number };

/** CNAME hops followed before a chain is reported as a loop (resolvers commonly stop at 8-16). */
export const MAX_CNAME_HOPS = 8;
/**
 * Records of one answer kept (MX: the most preferred). Delivery tries a few MX hosts and the checks
 * read a handful of TXT records; a hostile zone's thousand would otherwise be kept, cached and walked.
 */
export const MAX_RECORDS_PER_ANSWER = 100;
/**
 * Longest TXT record kept, its character-strings joined. No record mailplane reads comes near it
 * (an 8192-bit DKIM key is ~1,400 characters, SPF is meant to fit 450 octets); a longer one is left
 * out of the answer, as a record that can be none of them.
 */
export const MAX_TXT_RECORD_LENGTH = 4096;

function recordValue(type: DnsRecordType, record: Resource): unknown {
  switch (type) {
    case 'TXT': {
      // A TXT record is a list of <character-string>s of at most 255 octets each; long values
      // such as DKIM keys are split across several, which mean one string joined without spaces.
      const data = record.data;
      return Array.isArray(data) ? data.join('') : String(data ?? '');
    }
    case 'CNAME':
      return normalizeName(record.domain ?? '');
    case 'NS':
      return normalizeName(record.ns ?? '');
    case 'MX':
      return { exchange: normalizeName(record.exchange ?? ''), preference: record.priority ?? 0 };
    default:
      return record.address ?? '';
  }
}

/** The records `type` keeps of the matching ones: TXT within its length, MX most preferred first, at most {@link MAX_RECORDS_PER_ANSWER}. */
function keptValues(type: DnsRecordType, matching: readonly Resource[]): unknown[] {
  let values = matching.map((record) => recordValue(type, record));
  if (type === 'TXT') values = values.filter((value) => (value as string).length <= MAX_TXT_RECORD_LENGTH);
  // Sorted before the cut, so the most preferred exchanges are the ones kept.
  if (type === 'MX')
    (values as MxRecord[]).sort((a, b) => a.preference - b.preference || a.exchange.localeCompare(b.exchange));
  return values.slice(0, MAX_RECORDS_PER_ANSWER);
}

/** The negative-caching TTL of RFC 2308: the smaller of the SOA's TTL and its MINIMUM field. */
function negativeTtl(packet: Packet): number {
  const soa = packet.authorities.find((record) => record.type === Packet.TYPE.SOA);
  if (!soa) return 0;
  return Math.min(soa.ttl, soa.minimum ?? 0);
}

function rcodeFailure(rcode: number): { reason: DnsFailureReason; detail: string } | null {
  if (rcode === RCODE.NOERROR) return null;
  if (rcode === RCODE.NXDOMAIN) return { reason: 'nxdomain', detail: 'NXDOMAIN' };
  if (rcode === RCODE.REFUSED) return { reason: 'refused', detail: 'REFUSED' };
  const names: Record<number, string> = { 1: 'FORMERR', 2: 'SERVFAIL', 4: 'NOTIMP' };
  return { reason: 'servfail', detail: names[rcode] ?? `response code ${rcode}` };
}

/**
 * Reads a response to a query for `name`/`type`, following the CNAME chain inside the answer
 * section (recursive resolvers put the whole chain there). `seen` holds the names already
 * visited by earlier queries of the same lookup, so a loop across queries is caught too.
 */
export function interpretResponse(
  packet: Packet,
  name: string,
  type: DnsRecordType,
  seen: Set<string>,
): Interpretation {
  const wanted = Packet.TYPE[type];
  const answers = packet.answers.filter((record) => record.class === Packet.CLASS.IN);
  const chain: string[] = [];
  let ttl = Number.POSITIVE_INFINITY;
  let current = normalizeName(name);
  for (;;) {
    const here = answers.filter((record) => normalizeName(record.name) === current);
    const matching = here.filter((record) => record.type === wanted);
    if (matching.length > 0) {
      for (const record of matching) ttl = Math.min(ttl, record.ttl);
      return { kind: 'records', chain, records: keptValues(type, matching), ttl };
    }
    const cname = type === 'CNAME' ? undefined : here.find((record) => record.type === Packet.TYPE.CNAME);
    if (!cname) break;
    const next = normalizeName(cname.domain ?? '');
    ttl = Math.min(ttl, cname.ttl);
    if (seen.has(next) || seen.size > MAX_CNAME_HOPS) {
      return { kind: 'failure', chain, reason: 'cname-loop', detail: `CNAME to ${next}`, ttl: 0 };
    }
    seen.add(next);
    chain.push(next);
    current = next;
  }
  const failure = rcodeFailure(packet.header.rcode);
  if (failure) {
    const cacheable = failure.reason === 'nxdomain';
    return { kind: 'failure', chain, ...failure, ttl: cacheable ? Math.min(ttl, negativeTtl(packet)) : 0 };
  }
  // NOERROR without data. A chain that ends at a target with no SOA in the authority section
  // comes from an authoritative server that does not hold the target: the target must be asked.
  const hasSoa = packet.authorities.some((record) => record.type === Packet.TYPE.SOA);
  if (chain.length > 0 && !hasSoa) return { kind: 'follow', chain, next: current, ttl };
  return {
    kind: 'failure',
    chain,
    reason: 'nodata',
    detail: 'no records of that type',
    ttl: Math.min(ttl, negativeTtl(packet)),
  };
}
