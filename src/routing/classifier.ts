import { TtlCache } from '../dns/cache.js';
import type { DnsLookupResult, MxRecord } from '../dns/answer.js';
import { systemClock, type Clock } from '../model/time.js';
import { classifyByDomain, classifyByMx, domainOf, MailboxProvider } from './providers.js';

/** Settings of {@link createProviderClassifier}. */
export interface ProviderClassifierOptions {
  /**
   * The MX hosts of a domain, most preferred first; `[]` when it has none. Throwing (or
   * rejecting) means "could not tell now": the answer is the default provider, cached briefly.
   */
  lookupMx: (domain: string) => Promise<readonly string[]>;
  /** Most custom domains remembered; the least recently used go first. Default 10 000. */
  cacheSize?: number;
  /** How long a custom domain's provider is remembered. Default 6 hours. */
  ttlMs?: number;
  /** How long a failed lookup's default answer is remembered. Default 60 seconds. */
  failureTtlMs?: number;
  /** Time source of the cache. Default: the system clock. */
  clock?: Clock;
}

/** Classifies recipients by mailbox provider, with a bounded cache of custom domains. */
export interface ProviderClassifier {
  /** The provider of a recipient address or domain: its consumer domain, else its MX hosts, else 11. */
  classify(addressOrDomain: string): Promise<MailboxProvider>;
  /** The provider without any lookup, or `undefined` when only an MX lookup could tell. */
  classifyCached(addressOrDomain: string): MailboxProvider | undefined;
  /** The MX hosts a custom domain's classification looked up (still cached), for MX-suffix shaping rules. */
  mxHostsCached(addressOrDomain: string): readonly string[] | undefined;
  /** Custom domains currently cached. */
  readonly cacheEntries: number;
}

/**
 * Creates a classifier. Consumer domains (`gmail.com`, `hotmail.fr`, ...) are answered from the
 * tables without a lookup; a custom domain is looked up once (concurrent callers share the lookup)
 * and its answer cached for `ttlMs`: Workspace and Microsoft 365 tenants are classified by their MX.
 *
 * @example
 * const classifier = createProviderClassifier({ lookupMx: mxHostsFrom(ctx.resolver) });
 * await classifier.classify('ceo@acme.example'); // 0 when acme.example's MX is aspmx.l.google.com
 */
export function createProviderClassifier(options: ProviderClassifierOptions): ProviderClassifier {
  const clock = options.clock ?? systemClock;
  const ttlMs = options.ttlMs ?? 6 * 3_600_000;
  const failureTtlMs = options.failureTtlMs ?? 60_000;
  const cache = new TtlCache<MailboxProvider>(options.cacheSize ?? 10_000, clock);
  const mxHosts = new TtlCache<readonly string[]>(options.cacheSize ?? 10_000, clock);
  // One lookup per domain at a time: a bulk send to one company must not issue a lookup per recipient.
  const inFlight = new Map<string, Promise<MailboxProvider>>();

  const lookup = async (domain: string): Promise<MailboxProvider> => {
    try {
      const hosts = await options.lookupMx(domain);
      const provider = classifyByMx(hosts) ?? MailboxProvider.Default;
      cache.set(domain, provider, ttlMs);
      mxHosts.set(domain, hosts, ttlMs);
      return provider;
    } catch {
      cache.set(domain, MailboxProvider.Default, failureTtlMs);
      return MailboxProvider.Default;
    }
  };

  const classifyCached = (addressOrDomain: string): MailboxProvider | undefined => {
    const domain = domainOf(addressOrDomain);
    return classifyByDomain(domain) ?? cache.get(domain);
  };

  return {
    classifyCached,
    mxHostsCached: (addressOrDomain) => mxHosts.get(domainOf(addressOrDomain)),
    classify(addressOrDomain) {
      const domain = domainOf(addressOrDomain);
      const known = classifyByDomain(domain) ?? cache.get(domain);
      if (known !== undefined) return Promise.resolve(known);
      let pending = inFlight.get(domain);
      if (!pending) {
        // Removed in a later microtask, so after the set below even if the lookup fails synchronously.
        pending = lookup(domain).finally(() => inFlight.delete(domain));
        inFlight.set(domain, pending);
      }
      return pending;
    },
    get cacheEntries() {
      return cache.size;
    },
  };
}

/**
 * Adapts a mailplane DNS resolver (`ctx.resolver`) to {@link ProviderClassifierOptions.lookupMx}:
 * a domain without MX records (NXDOMAIN, NODATA) has no hosts; any other failure throws, so the
 * classifier answers the default provider and asks again soon.
 */
export function mxHostsFrom(resolver: {
  resolveMx(name: string): Promise<DnsLookupResult<MxRecord>>;
}): (domain: string) => Promise<readonly string[]> {
  return async (domain) => {
    const result = await resolver.resolveMx(domain);
    if (result.ok) return [...result.records].sort((a, b) => a.preference - b.preference).map((r) => r.exchange);
    if (result.reason === 'nxdomain' || result.reason === 'nodata') return [];
    throw new Error(`MX lookup of ${domain} failed: ${result.reason}`);
  };
}
