import type { IpStore, TpspStore, IpPoolStore } from '../../../src/store/index.js';
import type { KyselyStoreContext } from './context.js';

// PLACEHOLDER: filled by the helper that owns this area; remove this comment.
/** {@link IpStore} on Kysely. */
export function kyselyIpStore(_ctx: KyselyStoreContext): IpStore {
  return {};
}
/** {@link TpspStore} on Kysely. */
export function kyselyTpspStore(_ctx: KyselyStoreContext): TpspStore {
  return {};
}
/** {@link IpPoolStore} on Kysely. */
export function kyselyIpPoolStore(_ctx: KyselyStoreContext): IpPoolStore {
  return {};
}
