import type { JobStore } from '../../../src/store/index.js';
import type { KyselyStoreContext } from './context.js';

// PLACEHOLDER: filled by the helper that owns this area; remove this comment.
/** {@link JobStore} on Kysely. */
export function kyselyJobStore(_ctx: KyselyStoreContext): JobStore {
  return {};
}
