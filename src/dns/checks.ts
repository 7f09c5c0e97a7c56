import { detectDnsProvider } from './providers.js';
import { expectedDkimKey, parseDkimRecord } from './dkim-record.js';
import { looksLikeDmarc, parseDmarcRecord } from './dmarc-record.js';
import { normalizeName } from './names.js';
import { isAbsent, lookupFailureReason } from './reasons.js';
import { checkSpfInclude, looksLikeSpf } from './spf-record.js';
import { cleanTxtValue, clip } from './tag-list.js';
import type { DnsRecordType } from './wire.js';
import type { DnsLookupOptions, DnsResolver } from './resolver.js';

/** Where a CNAME must be and where it must point. */
export interface ExpectedCname {
  host: string;
  target: string;
}

/**
 * What a domain is expected to publish, as plain values (the domain resource's records).
 * A record left out (or `null`) is not checked and comes back unverified with an empty reason.
 */
export interface ExpectedDnsRecords {
  /** The sending domain; the DNS provider is looked up from its name servers. */
  domain: string;
  /** The DKIM TXT record: its host and the value mailplane shows (`v=DKIM1; k=rsa; p=...` or the bare key). */
  dkim: { host: string; textValue: string };
  returnPath?: ExpectedCname | null;
  track?: ExpectedCname | null;
  /** The DMARC TXT host, normally `_dmarc.<domain>`. Any valid DMARC record there verifies it. */
  dmarc?: { host: string } | null;
  /** The SPF TXT host (normally the Return-Path host) and the include it must authorise. */
  spf?: { host: string; include: string } | null;
}

/** The state of one record: verified, or the reason it is not (empty when verified or not checked). */
export interface RecordCheck {
  verified: boolean;
  reason: string;
}

/** The outcome of checking every record of a domain. */
export interface DnsCheckResult {
  dkim: RecordCheck;
  returnPath: RecordCheck;
  track: RecordCheck;
  dmarc: RecordCheck;
  spf: RecordCheck;
  /** The domain counts as verified exactly when its DKIM record is (the minimum for signing). */
  verified: boolean;
  /** The DNS provider detected from the domain's name servers; `''` when unknown. */
  dnsProvider: string;
}

const pass: RecordCheck = { verified: true, reason: '' };
const notChecked: RecordCheck = { verified: false, reason: '' };
const fail = (reason: string): RecordCheck => ({ verified: false, reason });

interface CheckContext {
  resolver: DnsResolver;
  domain: string;
  lookup: DnsLookupOptions;
  provider: Promise<string>;
}

/**
 * When a record is missing, looks for it at `<host>.<domain>`: DNS providers' forms append the
 * domain to the name typed in, so customers who type the full host end up publishing there.
 */
async function misplacedHint(context: CheckContext, host: string, type: DnsRecordType): Promise<string> {
  const domain = normalizeName(context.domain);
  if (!host.endsWith(`.${domain}`)) return '';
  const doubled = `${host}.${domain}`;
  const found = await context.resolver.resolve(doubled, type, context.lookup);
  if (!found.ok) return '';
  const label = host.slice(0, -(domain.length + 1));
  return `; found one at ${doubled} instead: your DNS provider adds ${domain} to the name, so enter only ${label} as the name`;
}

async function txtRecords(context: CheckContext, what: string, host: string): Promise<string[] | RecordCheck> {
  const result = await context.resolver.resolveTxt(host, context.lookup);
  if (result.ok) return result.records.map(cleanTxtValue);
  const hint = isAbsent(result) ? await misplacedHint(context, host, 'TXT') : '';
  return fail(lookupFailureReason(what, host, result) + hint);
}

async function checkDkim(context: CheckContext, expected: ExpectedDnsRecords['dkim']): Promise<RecordCheck> {
  const host = normalizeName(expected.host);
  const wanted = expectedDkimKey(expected.textValue);
  if (!wanted) return fail(`the DKIM key to publish at ${host} is missing; recreate the domain`);
  const records = await txtRecords(context, 'DKIM TXT', host);
  if (!Array.isArray(records)) return records;
  const parsed = records.map(parseDkimRecord);
  const dkim = parsed.filter((result) => result.ok || !result.notDkim);
  if (dkim.length === 0)
    return fail(`the TXT record at ${host} is not a DKIM key record; publish ${clip(expected.textValue, 60)}`);
  if (dkim.length > 1) return fail(`found ${dkim.length} DKIM records at ${host}; keep only the one mailplane shows`);
  const only = dkim[0]!;
  if (!only.ok) return fail(`the DKIM record at ${host} cannot be read: ${only.error}`);
  const { record } = only;
  if (record.publicKey === '')
    return fail(`the DKIM record at ${host} has an empty key (p=), which means the key is revoked`);
  if (record.keyType !== wanted.keyType)
    return fail(`the DKIM record at ${host} is for key type ${clip(record.keyType, 20)}, expected ${wanted.keyType}`);
  if (record.publicKey !== wanted.publicKey) {
    const shown = `${record.publicKey.slice(0, 8)}…${record.publicKey.slice(-8)}`;
    return fail(
      `the DKIM record at ${host} carries a different public key (p=${shown}) than the one mailplane signs with; publish the value mailplane shows`,
    );
  }
  return pass;
}

async function checkCname(context: CheckContext, label: string, expected: ExpectedCname): Promise<RecordCheck> {
  const host = normalizeName(expected.host);
  const target = normalizeName(expected.target);
  const result = await context.resolver.resolveCname(host, context.lookup);
  if (result.ok) {
    const found = result.records[0] ?? '';
    return found === target ? pass : fail(`found a CNAME at ${host} to ${clip(found, 80)}, expected ${target}`);
  }
  if (!isAbsent(result)) return fail(lookupFailureReason(`${label} CNAME`, host, result));
  let reason = `${label} CNAME record at ${host} not found; add a CNAME to ${target}`;
  if (result.reason === 'nodata') {
    reason = `no CNAME record at ${host} (the name has other records); replace them with a CNAME to ${target}`;
    // Cloudflare answers for a proxied name with its own addresses instead of the CNAME.
    if ((await context.provider) === 'Cloudflare')
      reason += '. If Cloudflare proxies this name (orange cloud), set it to DNS only';
  }
  return fail(reason + (await misplacedHint(context, host, 'CNAME')));
}

async function checkDmarc(context: CheckContext, expected: { host: string }): Promise<RecordCheck> {
  const host = normalizeName(expected.host);
  const records = await txtRecords(context, 'DMARC TXT', host);
  if (!Array.isArray(records)) return records;
  const dmarc = records.filter(looksLikeDmarc);
  if (dmarc.length === 0)
    return fail(
      `the TXT record at ${host} is not a DMARC record (it must start with v=DMARC1); publish v=DMARC1; p=none`,
    );
  if (dmarc.length > 1)
    return fail(`found ${dmarc.length} DMARC records at ${host}; receivers ignore DMARC unless there is exactly one`);
  const parsed = parseDmarcRecord(dmarc[0]!);
  return parsed.ok ? pass : fail(`the DMARC record at ${host} is not valid: ${parsed.error}`);
}

/**
 * SPF is read at the Return-Path host. mailplane asks the customer for a CNAME there (the `spf`
 * record is the Return-Path CNAME), and the SPF TXT record itself is the operator's, at the CNAME's
 * target. So a reason names the record that is missing where it is missing: the customer's CNAME
 * (absent, or pointing elsewhere) or the operator's TXT at the target. `cnameTarget` is where the
 * CNAME must point when the SPF host is the Return-Path host; without it (a deployment that asks for
 * an SPF TXT record of the customer's own), the reasons name the TXT record.
 */
async function checkSpf(
  context: CheckContext,
  expected: { host: string; include: string },
  cnameTarget?: string,
): Promise<RecordCheck> {
  const host = normalizeName(expected.host);
  const target = cnameTarget === undefined ? undefined : normalizeName(cnameTarget);
  const publish = `v=spf1 include:${normalizeName(expected.include)} ~all`;
  const result = await context.resolver.resolveTxt(host, context.lookup);
  const reached = result.chain.at(-1);
  if (target !== undefined && result.chain.length === 0 && !result.ok && isAbsent(result)) {
    const hint = await misplacedHint(context, host, 'CNAME');
    return fail(
      `SPF is read through the Return-Path CNAME record at ${host}, which is not there; add a CNAME to ${target} (the same record as returnPath)${hint}`,
    );
  }
  if (target !== undefined && reached !== undefined && reached !== target && (result.ok || isAbsent(result))) {
    return fail(
      `SPF is read through the Return-Path CNAME at ${host}, which leads to ${clip(reached, 80)}, expected ${target}; point the CNAME to ${target}`,
    );
  }
  const where = reached ?? host;
  const operator = target !== undefined && reached === target;
  const remedy = operator
    ? `the operator of this mailplane must publish ${publish} at ${target}`
    : `publish ${publish}`;
  if (!result.ok) {
    if (!isAbsent(result)) return fail(lookupFailureReason('SPF TXT', host, result));
    const hint = operator ? '' : await misplacedHint(context, host, 'TXT');
    return fail(`${lookupFailureReason('SPF TXT', host, result)}; ${remedy}${hint}`);
  }
  const spf = result.records.map(cleanTxtValue).filter(looksLikeSpf);
  if (spf.length === 0) return fail(`SPF TXT record at ${where} not found (the name has other TXT records); ${remedy}`);
  if (spf.length > 1)
    return fail(`found ${spf.length} SPF records at ${where}; merge them into one, receivers reject more than one`);
  const included = checkSpfInclude(spf[0]!, expected.include);
  return included.ok ? pass : fail(`the SPF record at ${where} is not right: ${included.error}`);
}

/** A check must never reject: an unexpected fault becomes the record's reason. */
function settle(check: Promise<RecordCheck>): Promise<RecordCheck> {
  return check.catch((error: unknown) =>
    fail(`the check failed unexpectedly (${clip(String(error), 80)}); try again later`),
  );
}

/**
 * Looks up every expected record of a domain at once and reports each one on its own, with the
 * DNS provider. Never throws: every lookup problem becomes a record's reason.
 *
 * @example
 * const result = await checkDomainRecords(resolver, expectedDnsRecords('example.com', config, dkimTextValue));
 * if (!result.dkim.verified) console.log(result.dkim.reason);
 */
export async function checkDomainRecords(
  resolver: DnsResolver,
  expected: ExpectedDnsRecords,
  options: DnsLookupOptions = {},
): Promise<DnsCheckResult> {
  const provider = detectDnsProvider(resolver, expected.domain, options).catch(() => '');
  const context: CheckContext = { resolver, domain: expected.domain, lookup: options, provider };
  const [dkim, returnPath, track, dmarc, spf, dnsProvider] = await Promise.all([
    settle(checkDkim(context, expected.dkim)),
    expected.returnPath ? settle(checkCname(context, 'Return-Path', expected.returnPath)) : notChecked,
    expected.track ? settle(checkCname(context, 'tracking', expected.track)) : notChecked,
    expected.dmarc ? settle(checkDmarc(context, expected.dmarc)) : notChecked,
    expected.spf
      ? settle(
          checkSpf(
            context,
            expected.spf,
            expected.returnPath && normalizeName(expected.returnPath.host) === normalizeName(expected.spf.host)
              ? expected.returnPath.target
              : undefined,
          ),
        )
      : notChecked,
    provider,
  ]);
  return { dkim, returnPath, track, dmarc, spf, verified: dkim.verified, dnsProvider };
}
