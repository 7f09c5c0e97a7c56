/**
 * DNS verification of sending domains: a resolver client on dns2 (bounded timeouts, retries,
 * TCP fallback, caching), per-record checks (DKIM, Return-Path, tracking, DMARC, SPF) with
 * customer-readable failure reasons, DNS-provider detection and the RDAP registration date.
 *
 * @packageDocumentation
 */
export { createDnsResolver, type DnsResolver, type DnsResolverOptions, type DnsLookupOptions } from './resolver.js';
export type { DnsFailureReason, DnsLookupResult, DnsRecordValues, MxRecord } from './answer.js';
export { MAX_CNAME_HOPS, MAX_RECORDS_PER_ANSWER, MAX_TXT_RECORD_LENGTH } from './answer.js';
export { MAX_ANSWER_BYTES } from './wire.js';
export type { DnsRecordType } from './wire.js';
export { parseDnsServer, parseDnsServers, systemDnsServers, type DnsServerAddress } from './servers.js';
export { normalizeName, isValidName, sameName } from './names.js';
export {
  checkDomainRecords,
  type DnsCheckResult,
  type ExpectedCname,
  type ExpectedDnsRecords,
  type RecordCheck,
} from './checks.js';
export { verifyDomainDns, type DomainVerification, type VerifyDomainDnsOptions } from './verify.js';
export { detectDnsProvider, providerFromNameServers, DNS_PROVIDERS } from './providers.js';
export {
  createRdapLookup,
  registrationDateFromRdap,
  type RdapLookupOptions,
  type RegistrationDateLookup,
} from './rdap.js';
export { parseTagList, cleanTxtValue, type TagListResult } from './tag-list.js';
export { parseDkimRecord, expectedDkimKey, type DkimKeyRecord, type DkimParseResult } from './dkim-record.js';
export { parseDmarcRecord, looksLikeDmarc, type DmarcRecord, type DmarcParseResult } from './dmarc-record.js';
export { checkSpfInclude, looksLikeSpf, type SpfIncludeResult } from './spf-record.js';
