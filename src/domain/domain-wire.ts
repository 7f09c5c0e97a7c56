import { z } from 'zod';
import { epochNsSchema } from '../model/wire-schemas.js';
import type { DomainRecord, InboundDomainRecord } from '../store/index.js';
import { dkimTextValue, domainDnsRecords, type DnsRecord } from './records.js';
import { dkimHost } from './dkim-rotation.js';

/**
 * One DKIM record of a domain as `dkimRecords` lists it: the signing key's (`active`), a
 * rotation's new key waiting for its record (`pending`), and the key it replaced while its grace
 * period lasts (`retiring`, until `retireAt`, ns).
 */
export type DkimRecordWire = z.output<typeof dkimRecordWireSchema>;

/** Every DKIM record the domain's owner keeps published now (docs/domains.md, "DKIM key rotation"). */
export function dkimRecordsOf(domain: DomainRecord): DkimRecordWire[] {
  const record = (selector: string, publicKey: string): DnsRecord => ({
    host: dkimHost(selector, domain.name),
    type: 'TXT',
    textValue: dkimTextValue(publicKey),
  });
  const out: DkimRecordWire[] = [
    {
      ...record(domain.dkimSelector, domain.dkimPublicKey),
      selector: domain.dkimSelector,
      state: 'active',
      verified: domain.dkimVerified,
    },
  ];
  const { dkimPending: pending, dkimPrevious: previous } = domain;
  if (pending)
    out.push({
      ...record(pending.selector, pending.publicKey),
      selector: pending.selector,
      state: 'pending',
      verified: false,
      failureReason: pending.failureReason,
    });
  if (previous)
    out.push({
      ...record(previous.selector, previous.publicKey),
      selector: previous.selector,
      state: 'retiring',
      verified: true,
      retireAt: previous.retireAt,
    });
  return out;
}

/** One DNS record to publish, as the domain resource shows it. */
const dnsRecordWireSchema = z.object({ host: z.string(), type: z.enum(['TXT', 'CNAME']), textValue: z.string() });

/** The wire shape of one entry of {@link dkimRecordsOf}. */
const dkimRecordWireSchema = dnsRecordWireSchema.extend({
  selector: z.string(),
  state: z.enum(['active', 'pending', 'retiring']),
  verified: z.boolean(),
  failureReason: z.string().optional(),
  retireAt: epochNsSchema.optional(),
});

/** Whether the domain receives mail and, when it does, the MX record to publish and its check (docs/inbound.md). */
const domainInboundWireSchema = z.union([
  z.object({
    enabled: z.literal(true),
    mxRecord: z.object({ type: z.literal('MX'), host: z.string(), value: z.string(), priority: z.int() }),
    mxVerified: z.boolean(),
    mxFailureReason: z.string(),
  }),
  z.object({ enabled: z.literal(false) }),
]);

/** The receiving state {@link domainToWire} shows: the domain's row when it receives, and the receiving host. */
export interface DomainReceiving {
  inbound: InboundDomainRecord | null;
  /** The instance's `inbound.hostname`; `null` when unset. */
  hostname: string | null;
}

/** The `inbound` field of a domain. */
function inboundOf(domain: DomainRecord, receiving: DomainReceiving): z.output<typeof domainInboundWireSchema> {
  const { inbound, hostname } = receiving;
  if (!inbound) return { enabled: false };
  return {
    enabled: true,
    mxRecord: { type: 'MX', host: domain.name, value: hostname ?? '', priority: 10 },
    mxVerified: inbound.mxVerified,
    mxFailureReason: inbound.mxFailureReason,
  };
}

/** A domain as the API answers it. */
export type DomainWire = z.output<typeof domainWireSchema>;

/** The wire shape of {@link domainToWire}. */
export const domainWireSchema = z.object({
  id: z.int(),
  name: z.string(),
  dkim: dnsRecordWireSchema,
  /** mailplane addition: every DKIM record to keep published, with its state (docs/domains.md). */
  dkimRecords: z.array(dkimRecordWireSchema),
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
  /** mailplane addition: receiving mail on the domain (docs/inbound.md). */
  inbound: domainInboundWireSchema,
});

/**
 * The `Domain` of the reference document, plus `dnsProvider`, `spfFailureReason` and `inbound` (mailplane
 * additions). The DKIM private key never leaves the store. The reference's `gpt`, `gptVerified`,
 * `mailboxVerified` and `dkimConfig` are omitted: mailplane has no such checks, and an omitted
 * optional field tells a client less that is false than a permanent `false` would.
 */
export function domainToWire(domain: DomainRecord, receiving: DomainReceiving): DomainWire {
  const records = domainDnsRecords(domain);
  return {
    id: domain.id,
    name: domain.name,
    dkim: records.dkim,
    // mailplane addition: `dkim` is the signing key's record; during a rotation this lists the new key's too.
    dkimRecords: dkimRecordsOf(domain),
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
    inbound: inboundOf(domain, receiving),
  };
}
