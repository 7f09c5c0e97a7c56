import type { DomainStore } from '../../../src/store/index.js';
import type { KyselyStoreContext } from './context.js';

// PLACEHOLDER: filled by the helper that owns this area; remove this comment.
/** {@link DomainStore} on Kysely. */
export function kyselyDomainStore(_ctx: KyselyStoreContext): DomainStore {
  return {};
}
