import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * An IP address belongs to one account across the whole store: a unique index on `public_ip` (the
 * canonical spelling), so a second account's allocation of it conflicts, also under concurrent
 * requests on either dialect. Earlier versions let two accounts register one address; such a store
 * is refused with the addresses named, not repaired, because which account keeps an address is the
 * operator's decision (release it from all but one account with the previous version, then upgrade).
 */
export function ipOwnerMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const shared = await sql<{ public_ip: string; accounts: string | number | bigint }>`
        select public_ip, count(*) as accounts from ips group by public_ip having count(*) > 1 order by public_ip limit 20
      `.execute(db);
      if (shared.rows.length > 0) {
        const list = shared.rows.map((row) => `${row.public_ip} (${String(row.accounts)} accounts)`).join(', ');
        throw new Error(
          `mailplane migration 0010-ip-owner: these IP addresses are allocated to more than one account: ${list}. ` +
            'An address can belong to one account only: delete it from all accounts but one, then start again.',
        );
      }
      await db.schema.createIndex('ips_public_ip_unique').on('ips').column('public_ip').unique().execute();
    },
  };
}
