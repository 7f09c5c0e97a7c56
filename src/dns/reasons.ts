import type { DnsLookupResult } from './answer.js';
import { MAX_CNAME_HOPS } from './answer.js';

type Failure = Extract<DnsLookupResult<unknown>, { ok: false }>;

/**
 * Words a customer can act on for a lookup that found nothing. `what` names the record
 * ("DKIM TXT", "Return-Path CNAME"), `host` the name it belongs at.
 */
export function lookupFailureReason(what: string, host: string, failure: Failure): string {
  const via = failure.chain.length > 0 ? ` (${host} is a CNAME to ${failure.chain.join(', then ')})` : '';
  switch (failure.reason) {
    case 'nxdomain':
      return `${what} record at ${host} not found${via}`;
    case 'nodata':
      return `${what} record at ${host} not found${via || ' (the name exists, but has no record of that type)'}`;
    case 'servfail':
      return `the DNS servers of ${host} failed to answer (${failure.detail.split(' ')[0]}); check the domain's name servers and DNSSEC settings, then try again`;
    case 'refused':
      return `the resolver refused to look up ${host} (REFUSED); try again later`;
    case 'timeout':
      return `the resolver timed out looking up ${host}; try again later`;
    case 'unreachable':
      return `the resolver could not be reached to look up ${host}; try again later`;
    case 'malformed':
      return `the DNS answer for ${host} was malformed; check the records at ${host}, then try again`;
    case 'cname-loop':
      return `the CNAME records at ${host} form a loop or a chain longer than ${MAX_CNAME_HOPS}${via}; fix the CNAME`;
    case 'invalid-name':
      return `${host} is not a valid DNS name`;
  }
}

/** True for failures that say the record is absent, rather than that the lookup went wrong. */
export function isAbsent(failure: Failure): boolean {
  return failure.reason === 'nxdomain' || failure.reason === 'nodata';
}
