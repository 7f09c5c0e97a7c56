import { DOMAIN_CHECK_JOB, type MailplaneJobs } from '../jobs/kinds.js';
import type { EnqueueJob, JobQueue } from '../jobs/queue.js';
import type { Clock } from '../model/time.js';
import type { DomainRecord, MailplaneStore } from '../store/index.js';

/** What scheduling a domain's jobs uses: the instance's job queue and clock. */
export interface DomainJobDeps {
  readonly jobs: JobQueue<MailplaneJobs>;
  readonly clock: Clock;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** How long an unverified domain keeps being checked on the propagation schedule. */
export const PROPAGATION_WINDOW_MS = 48 * HOUR;

/** Interval of the re-check of a verified domain, and of an unverified one after the window. */
export const DAILY_CHECK_MS = 24 * HOUR;

/** Delay of the confirming re-check after a domain lost `verified` (a passing DNS hiccup is over by then). */
export const LOST_VERIFICATION_RECHECK_MS = 5 * MINUTE;

/**
 * When an unverified domain is checked, as offsets from its creation: often while DNS changes
 * are propagating (1, 2, 5, 10, 15, 30, 45 minutes, then hourly to 12 hours), then every 3 hours
 * until 48 hours. About 30 checks in all.
 */
export const UNVERIFIED_CHECK_OFFSETS_MS: readonly number[] = [
  ...[1, 2, 5, 10, 15, 30, 45].map((m) => m * MINUTE),
  ...Array.from({ length: 12 }, (_, i) => (i + 1) * HOUR),
  ...Array.from({ length: 12 }, (_, i) => (15 + 3 * i) * HOUR),
];

/**
 * When the next scheduled check of `domain` is due (epoch ms), given its state after a check at
 * `nowMs`. Verified domains: a day later. A domain that has just lost `verified`: 5 minutes later,
 * then daily. Unverified domains: the next point of `UNVERIFIED_CHECK_OFFSETS_MS` after
 * their creation, and once the 48-hour window has passed, daily. The schedule depends only on
 * the stored domain and the time, so it survives restarts without state of its own.
 */
export function nextDomainCheckAt(domain: DomainRecord, nowMs: number, lostVerification = false): number {
  if (domain.verified) return nowMs + DAILY_CHECK_MS;
  if (lostVerification) return nowMs + LOST_VERIFICATION_RECHECK_MS;
  const createdMs = Number(domain.created / 1_000_000n);
  const next = UNVERIFIED_CHECK_OFFSETS_MS.find((offset) => createdMs + offset > nowMs);
  return next === undefined ? nowMs + DAILY_CHECK_MS : createdMs + next;
}

/** The durable job of `domain`'s next check; one per domain (its dedupe key). */
export function domainCheckJob(domain: DomainRecord, runAt: number): EnqueueJob<MailplaneJobs> {
  const payload = { domainId: domain.id, subAccountId: domain.subAccountId };
  return { kind: DOMAIN_CHECK_JOB, payload, runAt, dedupeKey: `domain-${domain.id}` };
}

/**
 * Makes sure `domain` has a scheduled check, due per {@link nextDomainCheckAt}. A domain that
 * already has one keeps it (dedupe by domain). Pass `store` to write inside a transaction, then
 * call `ctx.jobs.notify()` after it commits.
 */
export async function scheduleNextDomainCheck(
  ctx: DomainJobDeps,
  domain: DomainRecord,
  store?: MailplaneStore,
): Promise<void> {
  await ctx.jobs.enqueue([domainCheckJob(domain, nextDomainCheckAt(domain, ctx.clock.now()))], store ? { store } : {});
}
