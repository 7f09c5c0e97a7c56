import type { WebhookStore } from '../../../src/store/index.js';
import type { KyselyStoreContext } from './context.js';

// PLACEHOLDER: filled by the helper that owns this area; remove this comment.
/** {@link WebhookStore} on Kysely. */
export function kyselyWebhookStore(_ctx: KyselyStoreContext): WebhookStore {
  return {};
}
