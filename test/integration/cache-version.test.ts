/**
 * Migration 0022-cache-version: the shared configuration version (`MailplaneStore.cacheVersion`).
 * On PostgreSQL every committed write to cached configuration moves it, in the writer's own
 * transaction (a rolled-back one leaves it), and accepting mail does not; SQLite gets the table
 * and offers no version (one node: its own writes go through its own caches).
 */
import { describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { useTestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { createSender, sendBody } from '../support/sending.js';

describe.each(storeKinds)('migration 0022-cache-version on %s', (kind) => {
  const api = useTestApi(kind);
  it(
    kind === 'postgres'
      ? 'moves the version with each configuration change, not with mail'
      : 'applies, and the store offers no version',
    async () => {
      const store = contextOf(api.mailplane).store;
      const sender = await createSender(api, 'versions', 'sender.test');
      if (kind === 'sqlite') {
        expect(store.cacheVersion).toBeUndefined();
        return;
      }
      const version = () => store.cacheVersion!();
      let before = await version();
      const changed = async (what: string) => {
        const now = await version();
        expect(now, what).not.toBe(before);
        before = now;
      };

      const hook = await api.call('POST', '/account/webhook', {
        account: api.accountKey,
        body: { url: 'https://hooks.example.com/a', delivered: true },
      });
      expect(hook.status, hook.text).toBe(200);
      await changed('webhook created');
      await api.call('PUT', `/account/webhook/${hook.body.id}`, {
        account: api.accountKey,
        body: { url: 'https://hooks.example.com/a', delivered: false },
      });
      await changed('webhook updated');
      const allocated = await api.call('PUT', '/account/ip/allocate', {
        account: api.accountKey,
        body: { ips: ['192.0.2.20'], autoWarmupEnabled: false },
      });
      expect(allocated.status, allocated.text).toBe(200);
      await changed('IP allocated');
      const pool = await api.call('POST', '/account/ippool', {
        account: api.accountKey,
        body: { name: 'P', routingStrategy: 0, routingMetaData: '{}', ips: [{ publicIP: '192.0.2.20' }] },
      });
      expect(pool.status, pool.text).toBe(200);
      await changed('pool created');

      // Mail is not configuration.
      const sent = await api.call('POST', '/subaccount/email', {
        sub: sender.subAccount.apiKey,
        body: sendBody(`news@${sender.domain.name}`, ['a@rcpt.test']),
      });
      expect(sent.status, sent.text).toBe(200);
      expect(await version()).toBe(before);

      // A change that rolls back leaves the version as it was.
      await expect(
        store.transaction(async (tx) => {
          await tx.webhooks.delete(1, hook.body.id);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await version()).toBe(before);
    },
  );
});
