import type { SuppressionStore } from '../../../src/store/index.js';
import type { KyselyStoreContext } from './context.js';

// PLACEHOLDER: filled by the helper that owns this area; remove this comment.
/** {@link SuppressionStore} on Kysely. */
export function kyselySuppressionStore(_ctx: KyselyStoreContext): SuppressionStore {
  return {};
}
