import type { DnsResolver, DnsLookupOptions } from './resolver.js';
import { normalizeName } from './names.js';
import { isAbsent, lookupFailureReason } from './reasons.js';
import { clip } from './tag-list.js';

/** Whether the MX records of `domain` send its mail to `host`, or why not in plain words. */
export interface MxCheck {
  verified: boolean;
  /** `''` when verified. */
  reason: string;
}

/**
 * Checks that `domain`'s most preferred MX record names `host` (the receiving host): a record of
 * the host behind another with a lower preference value gets no mail while that one answers, so it
 * does not count.
 */
export async function checkMxRecord(
  resolver: DnsResolver,
  domain: string,
  host: string,
  lookup: DnsLookupOptions = {},
): Promise<MxCheck> {
  const name = normalizeName(domain);
  const wanted = normalizeName(host);
  const publish = `publish ${name} MX 10 ${wanted}`;
  const result = await resolver.resolveMx(name, lookup);
  if (!result.ok) {
    const reason = lookupFailureReason('MX', name, result);
    return { verified: false, reason: isAbsent(result) ? `${reason}; ${publish}` : reason };
  }
  const best = Math.min(...result.records.map((record) => record.preference));
  const first = result.records.filter((record) => record.preference === best).map((r) => normalizeName(r.exchange));
  if (first.includes(wanted)) return { verified: true, reason: '' };
  const found = clip(first.join(', '), 120);
  const others = result.records.some((record) => normalizeName(record.exchange) === wanted);
  return {
    verified: false,
    reason: others
      ? `the MX record of ${name} to ${wanted} has a higher preference value than the one to ${found}, which gets the mail first; give ${wanted} the lowest`
      : `the MX record of ${name} points to ${found}, expected ${wanted}; ${publish}`,
  };
}
