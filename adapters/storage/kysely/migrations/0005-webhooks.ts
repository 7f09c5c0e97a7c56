import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { withIdColumn } from '../dialect.js';

/** The event switch columns, in the order of the reference's `Webhook`. */
const FLAG_COLUMNS = [
  'processed',
  'delivered',
  'dropped',
  'soft_bounced',
  'hard_bounced',
  'opened',
  'clicked',
  'unsubscribed',
  'spam',
  'sent',
  'smtp_dropped',
  'unique_open',
  'unique_click',
] as const;

/** Webhooks of accounts: endpoint, event switches, sealed signing secret. */
export function webhooksMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      let table = db.schema
        .createTable('webhooks')
        .$call(withIdColumn(dialect))
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('url_key', 'text', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1));
      for (const column of FLAG_COLUMNS) {
        table = table.addColumn(column, 'integer', (c) => c.notNull().defaultTo(0));
      }
      await table
        .addColumn('secret_sealed', 'text', (c) => c.notNull())
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addColumn('updated', 'bigint', (c) => c.notNull())
        // Also the index of every per-account query (its leading column is account_id).
        .addUniqueConstraint('webhooks_account_url', ['account_id', 'url'])
        .execute();
    },
  };
}
