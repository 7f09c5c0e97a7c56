import { z } from 'zod';
import { epochNsSchema } from '../model/wire-schemas.js';
import type { DomainRecord } from '../store/index.js';
import { domainDnsRecords } from './records.js';

/** One DNS record to publish, as the domain resource shows it. */
const dnsRecordWireSchema = z.object({ host: z.string(), type: z.enum(['TXT', 'CNAME']), textValue: z.string() });

/** The wire shape of {@link domainToWire}. */
export const domainWireSchema = z.object({
  id: z.int(),
  name: z.string(),
  dkim: dnsRecordWireSchema,
  spf: dnsRecordWireSchema,
  returnPath: dnsRecordWireSchema,
  track: dnsRecordWireSchema,
  dmarc: dnsRecordWireSchema,
  dkimVerified: z.boolean(),
  spfVerified: z.boolean(),
  dmarcVerified: z.boolean(),
  returnPathVerified: z.boolean(),
  trackVerified: z.boolean(),
  verified: z.boolean(),
  dkimFailureReason: z.string(),
  spfFailureReason: z.string(),
  dmarcFailureReason: z.string(),
  trackFailureReason: z.string(),
  returnPathFailureReason: z.string(),
  dnsProvider: z.string(),
  domainRegisteredDate: z.string(),
  created: epochNsSchema,
});

/**
 * The `Domain` of the reference document, plus `dnsProvider` and `spfFailureReason` (mailplane
 * additions). The DKIM private key never leaves the store. The reference's `gpt`, `gptVerified`,
 * `mailboxVerified` and `dkimConfig` are omitted: mailplane has no such checks, and an omitted
 * optional field tells a client less that is false than a permanent `false` would.
 */
export function domainToWire(domain: DomainRecord): z.output<typeof domainWireSchema> {
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
