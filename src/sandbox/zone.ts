/**
 * What the sandbox DNS server answers: exactly the records mailplane asks a sandbox domain to
 * publish (src/domain/records.ts), the operator's SPF record at the Return-Path target, and the
 * mail catcher as the MX of every domain.
 */
import type { DomainRecordsConfig } from '../domain/config.js';
import { DEFAULT_DMARC_VALUE, dkimTextValue } from '../domain/records.js';
import type { DomainRecord, SandboxStore } from '../store/index.js';
import type { ZoneRecord } from './dns-listener.js';

/** The host name of the sandbox mail catcher: the MX of every domain while the sandbox runs. */
export const SANDBOX_MX_HOST = 'mx.sandbox.mailplane.test';

/** Answers are short-lived: a domain added a moment ago must verify at once. */
const TTL = 5;

const clean = (name: string) => name.toLowerCase().replace(/\.$/, '');

/**
 * Whether the sandbox answers for `name`: names under the reserved `.test` and `.example`
 * top-level domains (RFC 2606, RFC 6761), and the operator's own record hosts.
 */
export function isSandboxName(name: string, config: DomainRecordsConfig): boolean {
  const host = clean(name);
  if (/(^|\.)(test|example)$/.test(host)) return true;
  return [config.returnPathTarget, config.trackingTarget, config.spfInclude].some((own) => clean(own) === host);
}

/** The records at `name` of type `type` (and the CNAME at `name`, if any), from the stored domains. */
export async function sandboxRecords(
  store: SandboxStore,
  config: DomainRecordsConfig,
  name: string,
  type: string,
): Promise<ZoneRecord[]> {
  const host = clean(name);
  if (type === 'MX') return [{ type: 'MX', ttl: TTL, value: { exchange: SANDBOX_MX_HOST, preference: 10 } }];
  if (host === SANDBOX_MX_HOST) return type === 'A' ? [{ type: 'A', ttl: TTL, value: '127.0.0.1' }] : [];
  if (host === clean(config.returnPathTarget) && type === 'TXT') {
    return [{ type: 'TXT', ttl: TTL, value: `v=spf1 include:${config.spfInclude} ~all` }];
  }
  const labels = host.split('.');
  // The sending domain is the name itself less one label (Return-Path and tracking hosts, _dmarc) or two (<selector>._domainkey).
  const candidates = [labels.slice(1).join('.'), labels.slice(2).join('.')].filter((d) => d.includes('.'));
  const found: DomainRecord[] = [];
  for (const candidate of candidates) found.push(...(await store.domainsNamed(candidate)));
  // A name several sub-accounts added answers with the newest one's records: DKIM allows one key per selector.
  const domain = found.sort((a, b) => b.id - a.id);
  for (const d of domain) {
    if (host === d.returnPathHost.toLowerCase()) return [{ type: 'CNAME', ttl: TTL, value: d.returnPathTarget }];
    if (host === d.trackHost.toLowerCase()) return [{ type: 'CNAME', ttl: TTL, value: d.trackTarget }];
    if (type !== 'TXT') continue;
    if (host === `${d.dkimSelector}._domainkey.${d.name}`)
      return [{ type: 'TXT', ttl: TTL, value: dkimTextValue(d.dkimPublicKey) }];
    // A rotation's keys are published at once too, so a rotation completes in the sandbox.
    for (const key of [d.dkimPending, d.dkimPrevious]) {
      if (key && host === `${key.selector}._domainkey.${d.name}`)
        return [{ type: 'TXT', ttl: TTL, value: dkimTextValue(key.publicKey) }];
    }
    if (host === `_dmarc.${d.name}`) return [{ type: 'TXT', ttl: TTL, value: DEFAULT_DMARC_VALUE }];
  }
  return [];
}
