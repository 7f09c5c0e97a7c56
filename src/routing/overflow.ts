/**
 * Overflow: when a pool cannot take a message (unavailable: no entity able to send; at capacity:
 * every entity that could send is at its warmup cap), the message goes to the pool's overflow
 * pool if `shouldOverflow` is set, and so on down the chain. A pool is never tried twice, so a
 * chain that loops (stored links are checked on write, but routing never trusts that) ends.
 * When the chain ends without a pool that can send, the message waits: a soft outcome, tried
 * again when capacity returns.
 */
import { isBlocked, type BlockedReason, type PickResult } from './strategies.js';

/** The overflow link of a pool. */
export interface OverflowLink {
  shouldOverflow: boolean;
  /** The pool to overflow to, or `null`. */
  overflowPoolId: number | null;
}

/** Why the chain stopped at the last pool tried. */
export type ChainEnd =
  /** The pool does not overflow (`shouldOverflow` false or no overflow pool). */
  | 'no-overflow'
  /** Its overflow pool was already tried for this message. */
  | 'cycle'
  /** Its overflow pool no longer exists. */
  | 'missing-pool';

/** Why a message waits. */
export interface WaitReason {
  /** What the last pool tried said. */
  reason: BlockedReason;
  /** The last pool tried. */
  poolId: number;
  /** Why the chain went no further. */
  end: ChainEnd;
  /** Every pool tried, in order, starting with the selected one. */
  tried: number[];
}

/** The result of {@link resolveOverflow}. */
export type OverflowResult<T> =
  { ok: true; poolId: number; value: T; tried: number[] } | { ok: false; wait: WaitReason };

/**
 * Tries `startPoolId`, then its overflow chain, with `tryPool` (typically a strategy pick), and
 * returns the first pool that takes the message or why it waits.
 *
 * @example
 * resolveOverflow(7, (id) => pools.get(id), (id) => strategies.get(id)!.pick(input, states.get(id)!));
 */
export function resolveOverflow<T extends object>(
  startPoolId: number,
  linkOf: (poolId: number) => OverflowLink | undefined,
  tryPool: (poolId: number) => T | PickResult,
): OverflowResult<T> {
  const tried: number[] = [];
  let poolId = startPoolId;
  for (;;) {
    tried.push(poolId);
    const result = tryPool(poolId);
    if (!isBlocked(result as PickResult)) return { ok: true, poolId, value: result as T, tried };
    const reason = (result as { blocked: BlockedReason }).blocked;
    const link = linkOf(poolId);
    const next = link?.shouldOverflow ? link.overflowPoolId : null;
    if (next === null || next === undefined) return { ok: false, wait: { reason, poolId, end: 'no-overflow', tried } };
    if (tried.includes(next)) return { ok: false, wait: { reason, poolId, end: 'cycle', tried } };
    if (!linkOf(next)) return { ok: false, wait: { reason, poolId, end: 'missing-pool', tried } };
    poolId = next;
  }
}

/** A pool as {@link resolveSendingPool} sees it: its link and whether it can take mail now. */
export interface PoolAvailability extends OverflowLink {
  status: 'ready' | BlockedReason;
}

/**
 * The pool that sends, following overflow from `startPoolId` over pools whose availability is
 * already known (for a whole batch, or for display), or why the message waits.
 */
export function resolveSendingPool(
  startPoolId: number,
  pools: ReadonlyMap<number, PoolAvailability>,
): { ok: true; poolId: number; tried: number[] } | { ok: false; wait: WaitReason } {
  const result = resolveOverflow<{ ready: true }>(
    startPoolId,
    (id) => pools.get(id),
    (id) => {
      const status = pools.get(id)?.status ?? 'unavailable';
      return status === 'ready' ? { ready: true } : { blocked: status };
    },
  );
  return result.ok ? { ok: true, poolId: result.poolId, tried: result.tried } : result;
}
