import type { DomainRecord } from '../store/index.js';
import { domainDnsRecords } from './records.js';

/**
 * The `Domain` of the reference document, plus `dnsProvider` and `spfFailureReason` (mailplane
 * additions). The DKIM private key never leaves the store. The reference's `gpt`, `gptVerified`,
 * `mailboxVerified` and `dkimConfig` are omitted: mailplane has no such checks, and an omitted
 * optional field tells a client less that is false than a permanent `false` would.
 */
export function domainToWire(domain: DomainRecord) {
  const records = domainDnsRecords(domain);
  return {
    id: domain.id,
    name: domain.name,
    dkim: records.dkim,
    spf: records.spf,
    returnPath: records.returnPath,
    track: records.track,
    dmarc: records.dmarc,
    dkimVerified: domain.dkimVerified,
    spfVerified: domain.spfVerified,
    dmarcVerified: domain.dmarcVerified,
    returnPathVerified: domain.returnPathVerified,
    trackVerified: domain.trackVerified,
    verified: domain.verified,
    dkimFailureReason: domain.dkimFailureReason,
    spfFailureReason: domain.spfFailureReason,
    dmarcFailureReason: domain.dmarcFailureReason,
    trackFailureReason: domain.trackFailureReason,
    returnPathFailureReason: domain.returnPathFailureReason,
    dnsProvider: domain.dnsProvider,
    domainRegisteredDate: domain.domainRegisteredDate,
    created: domain.created,
  };
}
