import { checkDomainRecords, type DnsCheckResult, type ExpectedDnsRecords } from './checks.js';
import type { RegistrationDateLookup } from './rdap.js';
import type { DnsLookupOptions, DnsResolver } from './resolver.js';

/** Everything a verification run learns about a domain. */
export interface DomainVerification extends DnsCheckResult {
  /** `YYYY-MM-DD` from registration data, or `''` when unknown or not looked up. */
  domainRegisteredDate: string;
}

/** Inputs of {@link verifyDomainDns}. */
export interface VerifyDomainDnsOptions {
  resolver: DnsResolver;
  expected: ExpectedDnsRecords;
  /** Registration-date source; when absent the date is `''`. */
  registrationLookup?: RegistrationDateLookup;
  /** Bypass the resolver's cache (a customer pressing "verify" after changing DNS). */
  fresh?: boolean;
}

/**
 * Checks a domain's DNS records and looks up its registration date at the same time. The date
 * lookup cannot fail or delay the result beyond its own bounded timeout: any failure is `''`.
 *
 * @example
 * const result = await verifyDomainDns({
 *   resolver: createDnsResolver({ servers: parseDnsServers('127.0.0.1:5300') }),
 *   expected: expectedDnsRecords('example.com', ctx.config.domains, dkimTextValue),
 *   registrationLookup: createRdapLookup(),
 * });
 */
export async function verifyDomainDns(options: VerifyDomainDnsOptions): Promise<DomainVerification> {
  const lookup: DnsLookupOptions = options.fresh ? { fresh: true } : {};
  const registered = options.registrationLookup
    ? options.registrationLookup(options.expected.domain).then(
        (date) => (/^\d{4}-\d{2}-\d{2}$/.test(date) ? date : ''),
        () => '',
      )
    : Promise.resolve('');
  const [records, domainRegisteredDate] = await Promise.all([
    checkDomainRecords(options.resolver, options.expected, lookup),
    registered,
  ]);
  return { ...records, domainRegisteredDate };
}
