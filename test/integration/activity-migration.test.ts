/**
 * Migration 0015-activity on a store written by an earlier version: the recipient, sender and
 * group filter columns of existing messages are filled from their rows and sends, so the activity
 * lists find mail accepted before the upgrade; and 0024-event-keys, which copies them with the
 * status and pool onto existing events.
 */
import { describe, expect, it } from 'vitest';
import { kyselyStore, migrateToLatest } from '../../adapters/storage/kysely/index.js';
import { storeKinds } from '../support/databases.js';
import { withDatabaseAt } from '../support/migration-db.js';

describe.each(storeKinds)('migration 0015-activity on %s', (kind) => {
  it('backfills the filter columns of messages accepted before it', async () => {
    await withDatabaseAt(kind, '0014-settings', async (db, dialect) => {
      const content = { from: { email: 'News@Shop.example', name: '' }, groups: ['weekly', 'a|b'] };
      await db
        .insertInto('send_batches')
        .values({
          id: 'b1',
          account_id: 1,
          sub_account_id: 2,
          domain_id: null,
          content: JSON.stringify(content),
          created: 5n,
        } as never)
        .execute();
      const message = {
        batch_id: 'b1',
        account_id: 1,
        sub_account_id: 2,
        to_name: '',
        cc: '[]',
        bcc: '[]',
        custom_fields: '{}',
        status: 'queued',
        submitted_at: 5n,
        updated: 5n,
      };
      await db
        .insertInto('messages')
        .values([
          { ...message, id: 'm1', to_email: 'Ada@Example.org' },
          { ...message, id: 'm2', to_email: 'bob@example.org' },
        ] as never)
        .execute();

      await migrateToLatest(db, dialect);
      const store = kyselyStore({ db, dialect });
      const ids = async (filter: object) =>
        (await store.messages.listActivity({ accountId: 1, ...filter }, { limit: 10 })).map((m) => m.message.id);
      expect(await ids({ recipient: 'ada@example.org' })).toEqual(['m1']);
      expect(await ids({ sender: 'news@shop.example' })).toEqual(['m2', 'm1']);
      expect(await ids({ group: 'a|b' })).toEqual(['m2', 'm1']);
      expect(await ids({ group: 'a' })).toEqual([]);
    });
  });
});

describe.each(storeKinds)('migration 0024-event-keys on %s', (kind) => {
  it('copies the message keys, status and pool onto events written before it, so the event filters find them', async () => {
    await withDatabaseAt(kind, '0023-dashboard-sessions', async (db, dialect) => {
      const content = { from: { email: 'News@Shop.example', name: '' }, groups: ['weekly'] };
      await db
        .insertInto('send_batches')
        .values({
          id: 'b1',
          account_id: 1,
          sub_account_id: 2,
          domain_id: null,
          content: JSON.stringify(content),
          created: 5n,
        } as never)
        .execute();
      const message = {
        batch_id: 'b1',
        account_id: 1,
        sub_account_id: 2,
        to_name: '',
        cc: '[]',
        bcc: '[]',
        custom_fields: '{}',
        submitted_at: 5n,
        updated: 5n,
        from_key: 'news@shop.example',
        group_key: '|weekly|',
      };
      await db
        .insertInto('messages')
        .values([
          {
            ...message,
            id: 'm1',
            to_email: 'Ada@Example.org',
            to_key: 'ada@example.org',
            status: 'delivered',
            ip_pool_id: 3,
          },
          {
            ...message,
            id: 'm2',
            to_email: 'bob@example.org',
            to_key: 'bob@example.org',
            status: 'queued',
            ip_pool_id: null,
            from_key: 'x@y.example',
            group_key: '',
          },
        ] as never)
        .execute();
      const event = { account_id: 1, sub_account_id: 2, type: 0, metadata: '{}' };
      await db
        .insertInto('events')
        .values([
          { ...event, id: 'e1', message_id: 'm1', created: 6n },
          { ...event, id: 'e2', message_id: 'm2', created: 7n },
          { ...event, id: 'e3', message_id: 'm1', created: 8n },
        ] as never)
        .execute();

      await migrateToLatest(db, dialect);
      const store = kyselyStore({ db, dialect });
      const ids = async (filter: object) =>
        (await store.messages.listActivityEvents({ accountId: 1, ...filter }, { limit: 10 })).map((e) => e.event.id);
      expect(await ids({})).toEqual(['e3', 'e2', 'e1']);
      expect(await ids({ recipient: 'ada@example.org' })).toEqual(['e3', 'e1']);
      expect(await ids({ sender: 'news@shop.example' })).toEqual(['e3', 'e1']);
      expect(await ids({ group: 'weekly' })).toEqual(['e3', 'e1']);
      expect(await ids({ status: 'delivered' })).toEqual(['e3', 'e1']);
      expect(await ids({ status: 'queued' })).toEqual(['e2']);
      expect(await ids({ ipPoolId: 3 })).toEqual(['e3', 'e1']);
    });
  });
});
