import type { ExpectedDnsRecords } from '../dns/checks.js';
import type { DnsConfig } from '../dns/config.js';
import { createRdapLookup } from '../dns/rdap.js';
import { verifyDomainDns, type DomainVerification } from '../dns/verify.js';
import { NotFoundError } from '../errors.js';
import { nowNs } from '../model/time.js';
import type { Logger } from '../logging/logger.js';
import type { MailplaneMetrics } from '../metrics/metrics.js';
import type { DomainRecord, DomainVerificationPatch } from '../store/index.js';
import { domainDnsRecords } from './records.js';
import { scheduleNextDomainCheck, type DomainJobDeps } from './verification-schedule.js';
import { advanceDkimRotation, type DkimRotationDeps } from './dkim-rotation.js';
import { checkReceivingMx } from './receiving.js';

/**
 * The records a stored domain is checked against. Everything comes from what was stored when the
 * domain was added (hosts, targets, selector, key), so a later change of the operator's
 * configuration never fails a domain whose records are already published. Only the SPF include is
 * the operator's current one: the operator publishes that record, at the stored Return-Path target.
 */
export function expectedRecordsOfDomain(domain: DomainRecord, spfInclude: string): ExpectedDnsRecords {
  const records = domainDnsRecords(domain);
  return {
    domain: domain.name,
    dkim: { host: records.dkim.host, textValue: records.dkim.textValue },
    returnPath: { host: domain.returnPathHost, target: domain.returnPathTarget },
    track: { host: domain.trackHost, target: domain.trackTarget },
    dmarc: { host: records.dmarc.host },
    spf: { host: domain.returnPathHost, include: spfInclude },
  };
}

/**
 * The stored form of a verification result: every flag and reason, `verified` equal to
 * `dkimVerified` (the spec's rule), and the registration date only when one was learned (an
 * already-known date is never blanked by a failed lookup).
 */
export function verificationPatch(result: DomainVerification, checkedAt: bigint): DomainVerificationPatch {
  return {
    dkimVerified: result.dkim.verified,
    spfVerified: result.spf.verified,
    dmarcVerified: result.dmarc.verified,
    returnPathVerified: result.returnPath.verified,
    trackVerified: result.track.verified,
    verified: result.dkim.verified,
    dkimFailureReason: result.dkim.reason,
    spfFailureReason: result.spf.reason,
    dmarcFailureReason: result.dmarc.reason,
    returnPathFailureReason: result.returnPath.reason,
    trackFailureReason: result.track.reason,
    dnsProvider: result.dnsProvider,
    ...(result.domainRegisteredDate !== '' && { domainRegisteredDate: result.domainRegisteredDate }),
    lastCheckedAt: checkedAt,
    updated: checkedAt,
  };
}

/** How a check is run. */
export interface VerifyDomainOptions {
  /**
   * Ask the DNS servers instead of answering from the resolver's cache. Default true: a customer
   * pressing "verify" has just changed DNS. The schedule passes false and lets answers live for
   * their TTL (capped at 5 minutes).
   */
  fresh?: boolean;
  /** Make sure the domain has a scheduled re-check (default true). The schedule's own runs pass false. */
  ensureSchedule?: boolean;
}

/** What the verification service works with. */
export interface DomainVerifierDeps extends DkimRotationDeps, DomainJobDeps {
  readonly logger: Logger;
  readonly metrics: MailplaneMetrics;
  /** The instance's settings: the checks read those of sending domains and of DNS (RDAP). */
  readonly config: DkimRotationDeps['config'] & {
    readonly dns: DnsConfig;
    readonly inbound: { readonly hostname: string | null };
  };
}

/**
 * The DNS checks of one mailplane instance's sending domains. Owns the checks running in this
 * process, so concurrent calls for one domain share a check. Built once by `createMailplane`
 * (`context.domainVerifier`); `mailplane.close()` closes it, after the checks running finish.
 */
export class DomainVerifier {
  /** Checks running in this process, by `<subAccountId>/<domainId>`. */
  private readonly inFlight = new Map<string, Promise<DomainRecord | null>>();

  constructor(private readonly deps: DomainVerifierDeps) {}

  /**
   * Checks a domain's DNS records now and stores the outcome on the domain: each record's flag and
   * failure reason, `verified` (= DKIM verified), the DNS provider from its NS records, the RDAP
   * registration date (when `config.dns.rdapBaseUrl` is set and the date is not yet known; a
   * failed lookup leaves it as it was) and `lastCheckedAt`. Answers the updated domain.
   *
   * Concurrent calls for the same domain in this process share one check, so a burst of "verify"
   * presses costs one round of DNS queries. Throws 406 `DOMAIN_NOT_FOUND` for a domain that is
   * missing or belongs to another sub-account (or is deleted while the check runs).
   */
  async verify(
    subAccountId: number,
    domainId: number | null,
    options: VerifyDomainOptions = {},
  ): Promise<DomainRecord> {
    const notFound = () =>
      new NotFoundError('DOMAIN_NOT_FOUND', `no domain with id ${domainId ?? 'given'} in this sub-account`);
    if (domainId === null) throw notFound();
    const key = `${subAccountId}/${domainId}`;
    let check = this.inFlight.get(key);
    if (!check) {
      check = (async () => {
        const domain = await this.deps.store.domains.get(subAccountId, domainId);
        return domain ? this.run(domain, options) : null;
      })().finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, check);
    }
    const updated = await check;
    if (!updated) throw notFound();
    return updated;
  }

  private async run(domain: DomainRecord, options: VerifyDomainOptions): Promise<DomainRecord | null> {
    const { config, logger, resolver, store, clock } = this.deps;
    const rdapBaseUrl = config.dns.rdapBaseUrl;
    // The registration date does not change: once known it is not asked for again.
    const registrationLookup =
      rdapBaseUrl === null || domain.domainRegisteredDate !== ''
        ? undefined
        : createRdapLookup({
            baseUrl: rdapBaseUrl,
            onError: (name, message) =>
              logger.info('no registration date for domain', { domain: name, reason: message }),
          });
    const result = await verifyDomainDns({
      resolver,
      expected: expectedRecordsOfDomain(domain, config.domains.spfInclude),
      ...(registrationLookup && { registrationLookup }),
      fresh: options.fresh ?? true,
    }).catch((error: unknown) => {
      this.deps.metrics.dnsChecks.inc({ result: 'error' });
      throw error;
    });
    this.deps.metrics.dnsChecks.inc({ result: result.dkim.verified ? 'verified' : 'failed' });
    let updated = await store.domains.updateVerification(
      domain.subAccountId,
      domain.id,
      verificationPatch(result, nowNs(clock)),
    );
    // A rotation under way moves on with every check: its pending key signs once its record verifies.
    if (updated && (updated.dkimPending || updated.dkimPrevious))
      updated = await advanceDkimRotation(this.deps, updated, options.fresh ?? true);
    // A receiving domain's MX record is checked with its other records (docs/inbound.md).
    if (updated) await checkReceivingMx(this.deps, updated, options.fresh ?? true);
    if (updated && (options.ensureSchedule ?? true)) {
      // Domains added before the schedule existed, or whose job died, get one back; a pending job
      // keeps its time (dedupe), so this is one no-op insert in the usual case.
      await scheduleNextDomainCheck(this.deps, updated);
    }
    return updated;
  }

  /**
   * Waits for the checks running in this process (each bounded by the DNS and RDAP timeouts), so
   * none writes to a store that `mailplane.close()` is about to close.
   */
  async close(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()]);
  }
}

/**
 * Checks a domain's DNS records now through the instance's {@link DomainVerifier} service
 * (`ctx.domainVerifier.verify`) and answers the updated domain; see there.
 *
 * @example
 * const domain = await verifyDomainNow(ctx, subAccountId, domainId);
 * if (!domain.verified) console.log(domain.dkimFailureReason);
 */
export async function verifyDomainNow(
  ctx: { readonly domainVerifier: DomainVerifier },
  subAccountId: number,
  domainId: number | null,
  options: VerifyDomainOptions = {},
): Promise<DomainRecord> {
  return ctx.domainVerifier.verify(subAccountId, domainId, options);
}
