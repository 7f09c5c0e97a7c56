import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { withIdColumn } from '../dialect.js';

/**
 * Receiving mail (docs/inbound.md): the sending domains that receive (a row exists only while
 * receiving is enabled), the routes of sub-accounts and the messages received. `raw` is a binary
 * column (BLOB, bytea): a received message is bytes, not always UTF-8, and may be megabytes, so it
 * is stored as it came rather than base64 (a third larger) as the sandbox's captures are.
 */
export function inboundMigration(dialect: DialectName) {
  const binary = dialect === 'postgres' ? 'bytea' : 'blob';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('inbound_domains')
        .addColumn('domain_id', 'integer', (c) => c.primaryKey().references('domains.id').onDelete('cascade'))
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('sub_account_id', 'integer', (c) => c.notNull().references('sub_accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('enabled_at', 'bigint', (c) => c.notNull())
        .addColumn('mx_verified', 'integer', (c) => c.notNull())
        .addColumn('mx_failure_reason', 'text', (c) => c.notNull())
        .addColumn('mx_checked_at', 'bigint', (c) => c.notNull())
        .execute();
      // The listener's RCPT check looks a name up across every account.
      await db.schema.createIndex('inbound_domains_name').on('inbound_domains').column('name').execute();
      await db.schema
        .createIndex('inbound_domains_sub_account')
        .on('inbound_domains')
        .columns(['sub_account_id', 'name'])
        .execute();

      await db.schema
        .createTable('inbound_routes')
        .$call(withIdColumn(dialect))
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('sub_account_id', 'integer', (c) => c.notNull().references('sub_accounts.id').onDelete('cascade'))
        .addColumn('pattern', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('local_part', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('url', 'text')
        .addColumn('secret_sealed', 'text')
        .addColumn('forward_to', 'text')
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addColumn('updated', 'bigint', (c) => c.notNull())
        // Two concurrent creates of one pattern: the index lets one win.
        .addUniqueConstraint('inbound_routes_pattern', ['sub_account_id', 'pattern'])
        .execute();
      await db.schema.createIndex('inbound_routes_domain').on('inbound_routes').column('domain').execute();

      await db.schema
        .createTable('inbound_messages')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('sub_account_id', 'integer', (c) => c.notNull().references('sub_accounts.id').onDelete('cascade'))
        .addColumn('route_id', 'integer', (c) => c.references('inbound_routes.id').onDelete('set null'))
        .addColumn('received_at', 'bigint', (c) => c.notNull())
        .addColumn('mail_from', 'text', (c) => c.notNull())
        .addColumn('rcpt_to', 'text', (c) => c.notNull())
        .addColumn('from_address', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('message_id_header', 'text', (c) => c.notNull())
        .addColumn('in_reply_to_message_id', 'text')
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('raw', binary)
        // JSON of the authentication results ({ spf, dkim, dmarc, arc }).
        .addColumn('auth', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('detail', 'text', (c) => c.notNull())
        .addColumn('updated', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('inbound_messages_sub_account')
        .on('inbound_messages')
        .columns(['sub_account_id', 'received_at', 'id'])
        .execute();
      await db.schema.createIndex('inbound_messages_received').on('inbound_messages').column('received_at').execute();
      // ON DELETE SET NULL of a route finds its messages without a scan.
      await db.schema.createIndex('inbound_messages_route').on('inbound_messages').column('route_id').execute();
    },
  };
}
