import type { ExpectedDnsRecords } from '../dns/checks.js';
import { normalizeName } from '../dns/names.js';
import type { DomainRecord } from '../store/index.js';
import type { DomainRecordsConfig } from './config.js';

/** One DNS record a customer publishes, as the wire shows it. */
export interface DnsRecord {
  host: string;
  type: 'TXT' | 'CNAME';
  textValue: string;
}

/** Every record of a sending domain, keyed as the `Domain` resource names them. */
export interface DomainDnsRecords {
  dkim: DnsRecord;
  spf: DnsRecord;
  returnPath: DnsRecord;
  track: DnsRecord;
  dmarc: DnsRecord;
}

/** The DMARC policy suggested to new domains: monitor only, so publishing it never loses mail. */
export const DEFAULT_DMARC_VALUE = 'v=DMARC1; p=none;';

/** The hosts and targets a new domain gets from the operator's configuration. */
export function planDomainHosts(name: string, config: DomainRecordsConfig) {
  return {
    dkimSelector: config.dkimSelector,
    returnPathHost: `${config.returnPathLabel}.${name}`,
    returnPathTarget: config.returnPathTarget,
    trackHost: `${config.trackingLabel}.${name}`,
    trackTarget: config.trackingTarget,
  };
}

/** The DKIM TXT value for a base64 SPKI public key. */
export function dkimTextValue(publicKey: string): string {
  return `v=DKIM1; k=rsa; p=${publicKey}`;
}

/**
 * The records to publish for a stored domain. They come from the values stored at creation, so
 * a later change of the operator's configuration never invalidates records already published.
 *
 * `spf` is the Return-Path CNAME itself: SPF is evaluated on the envelope sender domain (the
 * Return-Path host), and a CNAME there makes receivers read the SPF TXT record the operator
 * publishes at the target. A TXT record cannot sit beside a CNAME on the same host (RFC 1034
 * section 3.6.2), so the SPF record cannot be a separate TXT at that host.
 */
export function domainDnsRecords(domain: DomainRecord): DomainDnsRecords {
  const returnPath: DnsRecord = { host: domain.returnPathHost, type: 'CNAME', textValue: domain.returnPathTarget };
  return {
    dkim: {
      host: `${domain.dkimSelector}._domainkey.${domain.name}`,
      type: 'TXT',
      textValue: dkimTextValue(domain.dkimPublicKey),
    },
    spf: { ...returnPath },
    returnPath,
    track: { host: domain.trackHost, type: 'CNAME', textValue: domain.trackTarget },
    dmarc: { host: `_dmarc.${domain.name}`, type: 'TXT', textValue: DEFAULT_DMARC_VALUE },
  };
}

/**
 * The records a domain is expected to publish under an operator configuration: DKIM at
 * `<selector>._domainkey.<domain>`, Return-Path and tracking CNAMEs at `<label>.<domain>`,
 * DMARC at `_dmarc.<domain>`, and SPF at the Return-Path host (the envelope sender's domain,
 * which is what SPF checks) with the configured include.
 */
export function expectedDnsRecords(domain: string, config: DomainRecordsConfig, dkimValue: string): ExpectedDnsRecords {
  const name = normalizeName(domain);
  const returnPathHost = `${config.returnPathLabel}.${name}`;
  return {
    domain: name,
    dkim: { host: `${config.dkimSelector}._domainkey.${name}`, textValue: dkimValue },
    returnPath: { host: returnPathHost, target: config.returnPathTarget },
    track: { host: `${config.trackingLabel}.${name}`, target: config.trackingTarget },
    dmarc: { host: `_dmarc.${name}` },
    spf: { host: returnPathHost, include: config.spfInclude },
  };
}
