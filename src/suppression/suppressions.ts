import { ValidationError, type FieldIssue } from '../errors.js';
import { msToNs, nowNs, type Clock } from '../model/time.js';
import {
  SuppressionType,
  type NewSuppression,
  type SuppressionFilter,
  type SuppressionOwner,
  type SuppressionRecord,
} from '../store/suppression-store.js';
import { parseExpiry } from './entries.js';
import type { MailplaneStore } from '../store/index.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface SuppressionsDeps {
  readonly store: MailplaneStore;
  readonly clock: Clock;
}

/** Most addresses one request may add or remove; bigger lists are split by the caller. */
export const MAX_SUPPRESSIONS_PER_REQUEST = 10_000;

/** The type names of the wire (`type` query parameter and the keys of the create body). */
export type SuppressionTypeName = 'hardBounce' | 'manual' | 'unsubscribe' | 'spamComplaint';

/**
 * Wire names by stored type, in precedence order: when one request lists an address under two
 * types, the earlier one here wins (a hard bounce or a complaint says more than a manual entry).
 */
export const SUPPRESSION_TYPES: ReadonlyArray<readonly [SuppressionTypeName, SuppressionType]> = [
  ['hardBounce', SuppressionType.HardBounce],
  ['spamComplaint', SuppressionType.SpamComplaint],
  ['unsubscribe', SuppressionType.Unsubscribe],
  ['manual', SuppressionType.Manual],
];

/** The stored type of a wire type name. */
export const suppressionTypeOf = (name: SuppressionTypeName): SuppressionType =>
  SUPPRESSION_TYPES.find(([wire]) => wire === name)![1];

/** One entry of the create body: an address or `*@domain`, and an optional ISO 8601 expiry. */
export interface SuppressionEntryInput {
  email: string;
  expires?: string;
}

/** Addresses to add, grouped by type as the create body groups them. */
export type SuppressionsByType = Partial<Record<SuppressionTypeName, ReadonlyArray<SuppressionEntryInput>>>;

/**
 * Operations on one suppression list (a sub-account's or its account's), as the
 * `/subaccount/suppression` and `/account/suppression` endpoints use them.
 */
export const suppressionService = {
  /**
   * Suppresses every address given, idempotently: an address that is already suppressed keeps its
   * record (type and `created` included) unless it has expired. Every expiry is checked before
   * anything is stored, so a refused request adds nothing. Answers the stored record of each
   * distinct address.
   */
  async add(ctx: SuppressionsDeps, owner: SuppressionOwner, byType: SuppressionsByType): Promise<SuppressionRecord[]> {
    const nowMs = ctx.clock.now();
    const created = msToNs(nowMs);
    const issues: FieldIssue[] = [];
    const entries = SUPPRESSION_TYPES.flatMap(([name, type]) =>
      (byType[name] ?? []).map(({ email, expires }, index): NewSuppression => {
        if (expires === undefined) return { email, type, created };
        const expiry = parseExpiry(expires, nowMs);
        if ('problem' in expiry) {
          issues.push({ path: `${name}.${index}.expires`, message: expiry.problem });
          return { email, type, created };
        }
        return { email, type, created, expires: expiry.ns };
      }),
    );
    const [first] = issues;
    if (first) throw new ValidationError(`the body is not valid (${first.path}: ${first.message})`, issues);
    return ctx.store.suppressions.add(owner, entries);
  },

  /** Removes the addresses whatever their type; answers how many were suppressed. */
  remove(ctx: SuppressionsDeps, owner: SuppressionOwner, emails: readonly string[]): Promise<number> {
    return ctx.store.suppressions.remove(owner, emails);
  },

  /** One page of the list, ordered by id, filtered by created range, type and address substring. */
  list(ctx: SuppressionsDeps, owner: SuppressionOwner, filter: SuppressionFilter): Promise<SuppressionRecord[]> {
    return ctx.store.suppressions.list(owner, filter);
  },
};

/**
 * Suppresses one address because of something that happened to mail sent to it (a hard bounce
 * with the server's reply, an unsubscribe, a complaint). For the bounce, unsubscribe and feedback
 * loop handlers; idempotent like every add.
 */
export async function recordSuppression(
  ctx: SuppressionsDeps,
  subAccountId: number,
  email: string,
  type: SuppressionType,
  smtpError = '',
): Promise<SuppressionRecord | null> {
  const [record] = await ctx.store.suppressions.add(subAccountId, [
    { email, type, smtpError, created: nowNs(ctx.clock) },
  ]);
  return record ?? null;
}
