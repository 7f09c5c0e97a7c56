/**
 * SPF, DKIM, DMARC and ARC of a received message, computed by mailauth with the instance's own DNS
 * resolver (src/dns/: its servers, deadlines and cache), never the system's, so an instance that
 * points its resolver at a given server (a test's, the sandbox's) authenticates against it too.
 */
import type { DnsResolver } from '../dns/resolver.js';
import type { InboundAuthResults } from '../store/inbound-store.js';

/** What the SMTP session says about the message's sender. */
export interface InboundSessionFacts {
  /** The client's IP address. */
  ip: string;
  /** The name it gave in EHLO/HELO. */
  helo: string;
  /** The envelope sender (`MAIL FROM`), `''` for a bounce. */
  mailFrom: string;
  /** The receiving host's name, written in mailauth's results. */
  mta: string;
}

/** The words a verdict may be; anything else mailauth says is reported as `none`. */
const VERDICTS: ReadonlySet<string> = new Set([
  'pass',
  'fail',
  'none',
  'neutral',
  'softfail',
  'temperror',
  'permerror',
  'policy',
]);

/** Every check `temperror`: what a message gets when authentication itself fails. */
const UNCHECKED: InboundAuthResults = { spf: 'temperror', dkim: 'temperror', dmarc: 'temperror', arc: 'temperror' };

const verdict = (result: { status?: { result?: string } } | false | undefined): string => {
  const word = (result && result.status?.result?.toLowerCase()) || 'none';
  return VERDICTS.has(word) ? word : 'none';
};

/** An error as node's `dns.promises.resolve` throws it, which is what mailauth reads a failed lookup by. */
const dnsError = (reason: string, name: string): Error => {
  const code = reason === 'nxdomain' ? 'ENOTFOUND' : reason === 'nodata' ? 'ENODATA' : 'ESERVFAIL';
  return Object.assign(new Error(`${code} ${name}`), { code });
};

/**
 * mailauth's resolver (node's `dns.promises.resolve(name, type)` shape) over `resolver`. Types the
 * instance's client does not ask for (PTR) answer "no such record": the SPF mechanisms that need
 * them do not match, as on a resolver without them.
 */
export function mailauthResolver(
  resolver: Pick<DnsResolver, 'resolveTxt' | 'resolveMx' | 'resolveA' | 'resolveAaaa'>,
): (name: string, type: string) => Promise<unknown[]> {
  return async (name, type) => {
    switch (type.toUpperCase()) {
      case 'TXT': {
        const answer = await resolver.resolveTxt(name);
        if (!answer.ok) throw dnsError(answer.reason, name);
        return answer.records.map((record) => [record]);
      }
      case 'MX': {
        const answer = await resolver.resolveMx(name);
        if (!answer.ok) throw dnsError(answer.reason, name);
        return answer.records.map((record) => ({ exchange: record.exchange, priority: record.preference }));
      }
      case 'A':
      case 'AAAA': {
        const answer = await (type.toUpperCase() === 'A' ? resolver.resolveA(name) : resolver.resolveAaaa(name));
        if (!answer.ok) throw dnsError(answer.reason, name);
        return answer.records;
      }
      default:
        throw dnsError('nxdomain', name);
    }
  };
}

/**
 * The authentication results of `raw`: a DKIM verdict of `pass` when any signature passes,
 * otherwise the first signature's. A failure of mailauth itself gives `temperror` everywhere: the
 * message is still received (its results say it could not be checked).
 */
export async function authenticateInbound(
  raw: Buffer,
  facts: InboundSessionFacts,
  resolver: Parameters<typeof mailauthResolver>[0],
): Promise<InboundAuthResults> {
  // Loaded on the first message, not with the library: mailauth (with mailparser, which only
  // received mail uses too) took about half a CPU-second to load, which every process paid at
  // start, a command-line call or an instance that never receives mail included.
  const { authenticate } = await import('mailauth');
  try {
    const result = await authenticate(raw, {
      ip: facts.ip,
      helo: facts.helo,
      mta: facts.mta,
      ...(facts.mailFrom !== '' && { sender: facts.mailFrom }),
      disableBimi: true,
      resolver: mailauthResolver(resolver),
    });
    const signatures = result.dkim?.results ?? [];
    const dkim = signatures.some((signature) => verdict(signature) === 'pass') ? 'pass' : verdict(signatures[0]);
    return { spf: verdict(result.spf), dkim, dmarc: verdict(result.dmarc), arc: verdict(result.arc) };
  } catch {
    return UNCHECKED;
  }
}
