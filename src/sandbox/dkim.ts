import type { DnsResolver } from '../dns/resolver.js';

/** The DKIM result of a captured message, as mailauth (an independent verifier) reports it. */
export interface SandboxDkimResult {
  /** `pass`, `fail`, `neutral`, `none`, … of the first signature (`none`: unsigned). */
  result: string;
  /** The signing domain (`d=`); `''` when unsigned. */
  domain: string;
  /** The selector (`s=`); `''` when unsigned. */
  selector: string;
  /** mailauth's comment when it did not pass (e.g. `body hash did not verify`). */
  comment: string;
}

/** Verifies the DKIM signature of `raw`, reading the key through `resolver` (the sandbox DNS). */
export async function verifySandboxDkim(
  raw: Buffer,
  resolver: Pick<DnsResolver, 'resolveTxt'>,
): Promise<SandboxDkimResult> {
  const lookup = async (name: string, type: string) => {
    if (type !== 'TXT') throw Object.assign(new Error(`no ${type} lookups`), { code: 'ENOTFOUND' });
    const answer = await resolver.resolveTxt(name, { fresh: true });
    if (!answer.ok)
      throw Object.assign(new Error(answer.reason), { code: answer.reason === 'nxdomain' ? 'ENOTFOUND' : 'ENODATA' });
    return answer.records.map((record) => [record]);
  };
  // Loaded on first use, not with the library: see src/inbound/authentication.ts.
  const { dkimVerify } = await import('mailauth/lib/dkim/verify.js');
  const { results } = await dkimVerify(raw, { resolver: lookup });
  const first = results[0];
  return {
    result: first?.status?.result ?? 'none',
    domain: first?.signingDomain ?? '',
    selector: first?.selector ?? '',
    comment: first?.status?.comment ?? '',
  };
}
