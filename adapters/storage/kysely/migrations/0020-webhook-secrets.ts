import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Webhooks on the Standard Webhooks scheme (docs/webhooks.md): the secret a rotation replaced and
 * until when it still signs, the failure streak that disables a webhook after days without a
 * success (and why and when it did), and the replay running for the webhook. Every column is
 * nullable with no default, so existing rows read as "no rotation, not failing, no replay".
 */
export function webhookSecretsMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const add = (column: string, type: 'text' | 'bigint') =>
        db.schema.alterTable('webhooks').addColumn(column, type).execute();
      await add('previous_secret_sealed', 'text');
      await add('previous_secret_until', 'bigint');
      await add('failing_since', 'bigint');
      await add('disabled_reason', 'text');
      await add('disabled_at', 'bigint');
      await add('replay_id', 'text');
      await add('replay_claimed_at', 'bigint');
    },
  };
}
