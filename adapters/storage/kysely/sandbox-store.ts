import type { Selectable } from 'kysely';
import type { SandboxMessageRecord, SandboxMessageSummary, SandboxStore } from '../../../src/store/sandbox-store.js';
import type { KyselyStoreContext } from './context.js';
import { toDomain } from './domain-store.js';
import { toBigint, toNumber } from './rows.js';
import type { SandboxMessagesTable } from './tables/sandbox.js';

const SUMMARY_COLUMNS = ['id', 'account_id', 'message_id', 'mail_from', 'rcpt_to', 'subject', 'received'] as const;

function toSummary(row: Omit<Selectable<SandboxMessagesTable>, 'raw'>): SandboxMessageSummary {
  return {
    id: toNumber(row.id),
    accountId: toNumber(row.account_id),
    messageId: row.message_id,
    mailFrom: row.mail_from,
    rcptTo: JSON.parse(row.rcpt_to) as string[],
    subject: row.subject,
    received: toBigint(row.received),
  };
}

/** {@link SandboxStore} on Kysely: one row per captured message, trimmed per account on each capture. */
export function kyselySandboxStore(ctx: KyselyStoreContext): SandboxStore {
  const { db } = ctx;
  return {
    async capture(message, keep) {
      const row = await db
        .insertInto('sandbox_messages')
        .values({
          account_id: message.accountId,
          message_id: message.messageId,
          mail_from: message.mailFrom,
          rcpt_to: JSON.stringify(message.rcptTo),
          subject: message.subject,
          raw: message.raw.toString('base64'),
          received: message.received,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const id = toNumber(row.id);
      // Everything older than the newest `keep` of this account goes; one statement, bounded by the index.
      const cutoff = await db
        .selectFrom('sandbox_messages')
        .select('id')
        .where('account_id', '=', message.accountId)
        .orderBy('id', 'desc')
        .offset(Math.max(0, keep))
        .limit(1)
        .executeTakeFirst();
      if (cutoff) {
        await db
          .deleteFrom('sandbox_messages')
          .where('account_id', '=', message.accountId)
          .where('id', '<=', toNumber(cutoff.id))
          .execute();
      }
      return { ...message, id, rcptTo: [...message.rcptTo] };
    },

    async list(accountId, query) {
      const rows = await db
        .selectFrom('sandbox_messages')
        .select(SUMMARY_COLUMNS)
        .where('account_id', '=', accountId)
        .orderBy('id', 'desc')
        .limit(query.limit)
        .offset(query.offset)
        .execute();
      return rows.map(toSummary);
    },

    async get(accountId, id): Promise<SandboxMessageRecord | null> {
      const row = await db
        .selectFrom('sandbox_messages')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? { ...toSummary(row), raw: Buffer.from(row.raw, 'base64') } : null;
    },

    async domainsNamed(name) {
      const rows = await db.selectFrom('domains').selectAll().where('name', '=', name).orderBy('id').execute();
      return rows.map(toDomain);
    },
  };
}
