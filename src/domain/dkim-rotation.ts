/**
 * DKIM key rotation (docs/domains.md, "DKIM key rotation"). A rotation makes a new 2048-bit key
 * under a new selector and keeps it *pending*: the domain goes on signing with its current key,
 * and the resource lists both records. Once the pending record verifies in DNS (the domain's DNS
 * checks, a `POST .../verify`, or the rotation's own job) the new key becomes the signing key in
 * one atomic store update, and the old one becomes *previous*: its record stays listed for the
 * grace period (mail signed just before the switch is verified by receivers later), then it is
 * dropped. Every step is a compare-and-set on the pending selector, so two nodes advancing the
 * same rotation change it once.
 */
import type { SecretBox } from '../crypto/secrets.js';
import { checkDomainRecords } from '../dns/checks.js';
import type { DnsResolver } from '../dns/resolver.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { DKIM_ROTATION_JOB, type MailplaneJobs } from '../jobs/kinds.js';
import type { EnqueueJob } from '../jobs/queue.js';
import { msToNs, nowNs, type Clock } from '../model/time.js';
import type { DomainRecord, MailplaneStore } from '../store/index.js';
import { generateDkimKeyPair } from './dkim-keys.js';
import { dkimTextValue } from './records.js';
import type { DomainRecordsConfig } from './config.js';
import { UNVERIFIED_CHECK_OFFSETS_MS, DAILY_CHECK_MS, type DomainJobDeps } from './verification-schedule.js';

const DAY_MS = 86_400_000;

/** The host of a DKIM record: `<selector>._domainkey.<domain>`. */
export const dkimHost = (selector: string, domain: string) => `${selector}._domainkey.${domain}`;

/**
 * The selector of a rotation's key: the configured selector and the UTC time of the rotation
 * (`mp1-20261125014500`), so each rotation publishes at a host no earlier key used.
 */
export function rotationSelector(base: string, nowMs: number, taken: readonly string[]): string {
  const stamp = new Date(nowMs).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  let selector = `${base}-${stamp}`;
  for (let n = 2; taken.includes(selector); n += 1) selector = `${base}-${stamp}-${n}`;
  return selector;
}

/** The job that follows `domain`'s rotation, due at `runAt`; one per domain (its dedupe key). */
export function dkimRotationJob(
  domain: Pick<DomainRecord, 'id' | 'subAccountId'>,
  runAt: number,
): EnqueueJob<MailplaneJobs> {
  return {
    kind: DKIM_ROTATION_JOB,
    payload: { domainId: domain.id, subAccountId: domain.subAccountId },
    runAt,
    dedupeKey: `dkim-rotation-${domain.id}`,
  };
}

/**
 * When the rotation job of `domain` runs next, or `null` when the rotation is over. A pending key
 * is checked on the schedule of a new domain (often in the first hours while DNS propagates, then
 * daily); a previous key is dropped when its grace period ends.
 */
export function nextRotationCheckAt(domain: DomainRecord, nowMs: number): number | null {
  if (domain.dkimPending) {
    const createdMs = Number(domain.dkimPending.created / 1_000_000n);
    const next = UNVERIFIED_CHECK_OFFSETS_MS.find((offset) => createdMs + offset > nowMs);
    return next === undefined ? nowMs + DAILY_CHECK_MS : createdMs + next;
  }
  if (domain.dkimPrevious) return Math.max(nowMs, Number(domain.dkimPrevious.retireAt / 1_000_000n));
  return null;
}

/**
 * Starts a rotation of the domain's DKIM key: a new RSA-2048 key under a new selector, pending
 * until its record verifies, and the job that checks it. Answers the updated domain. Throws 406
 * `DOMAIN_NOT_FOUND`, or 403 `DKIM_ROTATION_PENDING` while an earlier rotation's key still waits
 * for its record (publish it, or the one shown, first).
 */
export async function startDkimRotation(
  ctx: Omit<DkimRotationDeps, 'resolver'> & DomainJobDeps & { readonly secrets: SecretBox },
  subAccountId: number,
  domainId: number | null,
): Promise<DomainRecord> {
  const domain = domainId === null ? null : await ctx.store.domains.get(subAccountId, domainId);
  if (!domain)
    throw new NotFoundError('DOMAIN_NOT_FOUND', `no domain with id ${domainId ?? 'given'} in this sub-account`);
  const pending = () =>
    new ConflictError(
      'DKIM_ROTATION_PENDING',
      `the DKIM key rotation of ${domain.name} started earlier is still waiting for its record to be published; publish it first`,
    );
  if (domain.dkimPending) throw pending();
  const keys = await generateDkimKeyPair(ctx.config.domains.dkimKeyBits);
  const nowMs = ctx.clock.now();
  const taken = [domain.dkimSelector, ...(domain.dkimPrevious ? [domain.dkimPrevious.selector] : [])];
  const key = {
    selector: rotationSelector(ctx.config.domains.dkimSelector, nowMs, taken),
    publicKey: keys.publicKey,
    privateKeySealed: ctx.secrets.encrypt(keys.privateKeyPem),
    created: msToNs(nowMs),
    failureReason: '',
  };
  // The pending key and the job that follows it commit together; the condition (no pending key)
  // makes a concurrent second rotation fail instead of replacing the first's key.
  const updated = await ctx.store.transaction(async (tx) => {
    const result = await tx.domains.updateDkimKeys(subAccountId, domain.id, '', {
      pending: key,
      updated: msToNs(nowMs),
    });
    if (result)
      await ctx.jobs.enqueue([dkimRotationJob(result, nowMs + UNVERIFIED_CHECK_OFFSETS_MS[0]!)], { store: tx });
    return result;
  });
  if (!updated) throw pending();
  ctx.jobs.notify();
  return updated;
}

/**
 * Abandons the rotation under way: drops the pending key, whose record then need not be published,
 * and answers the domain; the signing key, and a previous key still retiring, stay as they are.
 * Throws 406 `DOMAIN_NOT_FOUND`, or 403 `DKIM_ROTATION_NOT_PENDING` when no key is pending (none was,
 * or its record verified first and it signs now: rotate again to replace it).
 */
export async function cancelDkimRotation(
  ctx: Pick<DkimRotationDeps, 'store' | 'clock'>,
  subAccountId: number,
  domainId: number | null,
): Promise<DomainRecord> {
  const domain = domainId === null ? null : await ctx.store.domains.get(subAccountId, domainId);
  if (!domain)
    throw new NotFoundError('DOMAIN_NOT_FOUND', `no domain with id ${domainId ?? 'given'} in this sub-account`);
  const notPending = () =>
    new ConflictError('DKIM_ROTATION_NOT_PENDING', `no DKIM key rotation of ${domain.name} is waiting for its record`);
  if (!domain.dkimPending) throw notPending();
  // Conditional on the selector: a check that promoted the key at the same moment wins, once.
  const updated = await ctx.store.domains.updateDkimKeys(subAccountId, domain.id, domain.dkimPending.selector, {
    pending: null,
    updated: nowNs(ctx.clock),
  });
  if (!updated) throw notPending();
  return updated;
}

/** What advancing a rotation needs. */
export interface DkimRotationDeps {
  readonly store: MailplaneStore;
  readonly clock: Clock;
  readonly resolver: DnsResolver;
  /** The instance's settings: a rotation reads those of sending domains. */
  readonly config: { readonly domains: DomainRecordsConfig };
}

/**
 * Moves `domain`'s rotation on, after a DNS check of the domain: checks the pending key's record
 * and, when it verifies, makes it the signing key (the old one becomes previous, listed until the
 * grace period ends); drops a previous key whose grace period has ended. Answers the domain as
 * stored afterwards (`domain` itself when nothing changed).
 */
export async function advanceDkimRotation(
  deps: DkimRotationDeps,
  domain: DomainRecord,
  fresh: boolean,
): Promise<DomainRecord> {
  const { store, clock, resolver, config } = deps;
  let current = domain;
  const pending = current.dkimPending;
  if (pending) {
    const result = await checkDomainRecords(
      resolver,
      {
        domain: current.name,
        dkim: { host: dkimHost(pending.selector, current.name), textValue: dkimTextValue(pending.publicKey) },
      },
      { fresh },
    );
    const now = nowNs(clock);
    const patch = result.dkim.verified
      ? {
          current: {
            selector: pending.selector,
            publicKey: pending.publicKey,
            privateKeySealed: pending.privateKeySealed,
          },
          pending: null,
          previous: {
            selector: current.dkimSelector,
            publicKey: current.dkimPublicKey,
            retireAt: now + msToNs(config.domains.dkimRotationGraceDays * DAY_MS),
          },
          rotatedAt: now,
          // The new signing key's record has just verified: so has the domain.
          dkimVerified: true,
          verified: true,
          dkimFailureReason: '',
          updated: now,
        }
      : { pending: { ...pending, failureReason: result.dkim.reason }, updated: now };
    current =
      (await store.domains.updateDkimKeys(current.subAccountId, current.id, pending.selector, patch)) ?? current;
  }
  const previous = current.dkimPrevious;
  if (previous && previous.retireAt <= nowNs(clock)) {
    current =
      (await store.domains.updateDkimKeys(current.subAccountId, current.id, current.dkimPending?.selector ?? '', {
        previous: null,
        updated: nowNs(clock),
      })) ?? current;
  }
  return current;
}

/**
 * Whether `domain` is due for an automatic rotation: `domains.dkimAutoRotateDays` is set, the
 * domain is verified, no rotation is under way, and its key has signed that many days.
 */
export function autoRotationDue(domain: DomainRecord, config: DkimRotationDeps['config'], nowMs: number): boolean {
  const days = config.domains.dkimAutoRotateDays;
  if (days <= 0 || !domain.verified || domain.dkimPending) return false;
  const since = domain.dkimRotatedAt > 0n ? domain.dkimRotatedAt : domain.created;
  return nowMs - Number(since / 1_000_000n) >= days * DAY_MS;
}

/** Makes sure a domain with a rotation under way has its job (after a restore, or a job that died). */
export async function ensureRotationJob(
  ctx: DomainJobDeps,
  domain: DomainRecord,
  store?: MailplaneStore,
): Promise<void> {
  const runAt = nextRotationCheckAt(domain, ctx.clock.now());
  if (runAt !== null) await ctx.jobs.enqueue([dkimRotationJob(domain, runAt)], store ? { store } : {});
}
