import type { MailplaneContext } from '../context.js';
import { nowNs } from '../model/time.js';
import { SuppressionType, type SuppressionFilter, type SuppressionRecord } from '../store/suppression-store.js';

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

/** Addresses to add, grouped by type as the create body groups them. */
export type SuppressionsByType = Partial<Record<SuppressionTypeName, ReadonlyArray<{ email: string }>>>;

/** Operations on the suppression list of one sub-account, as the `/subaccount/suppression` endpoints use them. */
export const suppressionService = {
  /**
   * Suppresses every address given, idempotently: an address that is already suppressed keeps its
   * record (type and `created` included). Answers the stored record of each distinct address.
   */
  async add(ctx: MailplaneContext, subAccountId: number, byType: SuppressionsByType): Promise<SuppressionRecord[]> {
    const created = nowNs(ctx.clock);
    const entries = SUPPRESSION_TYPES.flatMap(([name, type]) =>
      (byType[name] ?? []).map(({ email }) => ({ email, type, created })),
    );
    return ctx.store.suppressions.add(subAccountId, entries);
  },

  /** Removes the addresses whatever their type; answers how many were suppressed. */
  remove(ctx: MailplaneContext, subAccountId: number, emails: readonly string[]): Promise<number> {
    return ctx.store.suppressions.remove(subAccountId, emails);
  },

  /** One page of the list, ordered by id, filtered by created range, type and address substring. */
  list(ctx: MailplaneContext, subAccountId: number, filter: SuppressionFilter): Promise<SuppressionRecord[]> {
    return ctx.store.suppressions.list(subAccountId, filter);
  },
};

/**
 * Suppresses one address because of something that happened to mail sent to it (a hard bounce
 * with the server's reply, an unsubscribe, a complaint). For the bounce, unsubscribe and feedback
 * loop handlers; idempotent like every add.
 */
export async function recordSuppression(
  ctx: MailplaneContext,
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
