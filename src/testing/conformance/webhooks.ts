import { vitest } from '../vitest.js';
import type { MailplaneStore, NewWebhook, WebhookToggles } from '../../store/index.js';
import { newAccount, unique } from './fixtures.js';

const NO_TOGGLES: WebhookToggles = {
  processed: false,
  delivered: false,
  dropped: false,
  softBounced: false,
  hardBounced: false,
  opened: false,
  clicked: false,
  unsubscribed: false,
  spam: false,
  sent: false,
  smtpDropped: false,
  uniqueOpen: false,
  uniqueClick: false,
  incident: false,
};

/** A valid webhook for `accountId` with every switch off unless `toggles` turns it on. */
export function sampleWebhook(
  accountId: number,
  url: string,
  toggles: Partial<WebhookToggles> = {},
  enabled = true,
): NewWebhook {
  return {
    accountId,
    url,
    enabled,
    ...NO_TOGGLES,
    ...toggles,
    secretSealed: unique('sealed'),
    created: 1_733_844_681_120_384_511n,
  };
}

/** Webhooks: URL uniqueness per account, switches, scoping, the per-event lookup of the delivery worker. */
export function webhookStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('webhooks', () => {
    const create = async (input: NewWebhook) => {
      const outcome = await store().webhooks.create(input);
      if (!outcome.ok) throw new Error(`fixture webhook ${input.url}: ${outcome.reason}`);
      return outcome.value;
    };

    it('creates a webhook and reads it back with every switch and an exact timestamp', async () => {
      const account = await newAccount(store());
      const input = sampleWebhook(
        account.id,
        'https://hooks.example.com/a',
        { delivered: true, uniqueClick: true, smtpDropped: true },
        false,
      );
      const created = await create(input);
      expect(created).toEqual({
        ...NO_TOGGLES,
        id: created.id,
        accountId: account.id,
        url: 'https://hooks.example.com/a',
        enabled: false,
        delivered: true,
        uniqueClick: true,
        smtpDropped: true,
        secretSealed: input.secretSealed,
        previousSecretSealed: null,
        previousSecretUntil: null,
        failingSince: null,
        disabledReason: null,
        disabledAt: null,
        replayId: null,
        replayClaimedAt: null,
        created: 1_733_844_681_120_384_511n,
        updated: 1_733_844_681_120_384_511n,
      });
      expect(await store().webhooks.get(account.id, created.id)).toEqual(created);
    });

    it('refuses a duplicate URL within the account but not across accounts', async () => {
      const a = await newAccount(store(), 'a');
      const b = await newAccount(store(), 'b');
      await create(sampleWebhook(a.id, 'https://x.example/hook'));
      expect(await store().webhooks.create(sampleWebhook(a.id, 'https://x.example/hook'))).toEqual({
        ok: false,
        reason: 'duplicate-url',
      });
      expect((await store().webhooks.create(sampleWebhook(a.id, 'https://x.example/Hook'))).ok).toBe(true);
      expect((await store().webhooks.create(sampleWebhook(b.id, 'https://x.example/hook'))).ok).toBe(true);
    });

    it('lets exactly one of 20 concurrent creates of the same URL succeed', async () => {
      const account = await newAccount(store());
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, () => store().webhooks.create(sampleWebhook(account.id, 'https://race.example/'))),
      );
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(await store().webhooks.list(account.id, { limit: 100, offset: 0 })).toHaveLength(1);
    });

    it('lists by id with limit, offset and a literal case-insensitive search on the URL', async () => {
      const account = await newAccount(store());
      for (const url of [
        'https://Alpha.example/',
        'https://beta.example/',
        'https://x.example/ALPHA',
        'https://y.example/100%_',
        'https://y.example/100',
      ]) {
        await create(sampleWebhook(account.id, url));
      }
      const urls = async (query: { limit: number; offset: number; search?: string }) =>
        (await store().webhooks.list(account.id, query)).map((w) => w.url);
      expect(await urls({ limit: 2, offset: 1 })).toEqual(['https://beta.example/', 'https://x.example/ALPHA']);
      expect(await urls({ limit: 10, offset: 0, search: 'alpha' })).toEqual([
        'https://Alpha.example/',
        'https://x.example/ALPHA',
      ]);
      expect(await urls({ limit: 10, offset: 0, search: '%_' })).toEqual(['https://y.example/100%_']);
    });

    it('updates only the fields given and refuses a URL another webhook of the account has', async () => {
      const account = await newAccount(store());
      const first = await create(sampleWebhook(account.id, 'https://one.example/', { opened: true, spam: true }));
      const second = await create(sampleWebhook(account.id, 'https://two.example/'));
      const updated = await store().webhooks.update(account.id, first.id, {
        spam: false,
        hardBounced: true,
        enabled: false,
        secretSealed: 'rotated',
        url: 'https://uno.example/',
        updated: 9n,
      });
      expect(updated).toEqual({
        ok: true,
        value: {
          ...first,
          url: 'https://uno.example/',
          spam: false,
          hardBounced: true,
          enabled: false,
          secretSealed: 'rotated',
          updated: 9n,
        },
      });
      expect(
        await store().webhooks.update(account.id, second.id, { url: 'https://uno.example/', updated: 10n }),
      ).toEqual({
        ok: false,
        reason: 'duplicate-url',
      });
      expect(await store().webhooks.get(account.id, second.id)).toEqual(second);
      // The update read back through the other paths: by id, in the list, and by event switch.
      const stored = updated.ok ? updated.value : null;
      expect(await store().webhooks.get(account.id, first.id)).toEqual(stored);
      expect(await store().webhooks.list(account.id, { limit: 10, offset: 0 })).toEqual([stored, second]);
      expect(await store().webhooks.listEnabledForEvent(account.id, 'opened')).toEqual([]);
    });

    it('scopes every read and write by account', async () => {
      const a = await newAccount(store(), 'a');
      const b = await newAccount(store(), 'b');
      const mine = await create(sampleWebhook(a.id, 'https://mine.example/', { delivered: true }));
      expect(await store().webhooks.get(b.id, mine.id)).toBeNull();
      expect(await store().webhooks.list(b.id, { limit: 10, offset: 0 })).toEqual([]);
      expect(await store().webhooks.update(b.id, mine.id, { enabled: false, updated: 2n })).toEqual({
        ok: false,
        reason: 'not-found',
      });
      expect(await store().webhooks.delete(b.id, mine.id)).toBeNull();
      expect(await store().webhooks.listEnabledForEvent(b.id, 'delivered')).toEqual([]);
      expect(await store().webhooks.get(a.id, mine.id)).toEqual(mine);
    });

    it('deletes a webhook and answers what it removed', async () => {
      const account = await newAccount(store());
      const hook = await create(sampleWebhook(account.id, 'https://gone.example/'));
      expect(await store().webhooks.delete(account.id, hook.id)).toEqual(hook);
      expect(await store().webhooks.get(account.id, hook.id)).toBeNull();
      expect(await store().webhooks.list(account.id, { limit: 10, offset: 0 })).toEqual([]);
      expect(await store().webhooks.delete(account.id, hook.id)).toBeNull();
      // the URL is free again
      expect((await store().webhooks.create(sampleWebhook(account.id, 'https://gone.example/'))).ok).toBe(true);
    });

    it('finds the enabled webhooks of the account that switched an event on', async () => {
      const account = await newAccount(store(), 'a');
      const other = await newAccount(store(), 'b');
      const both = await create(sampleWebhook(account.id, 'https://both.example/', { opened: true, clicked: true }));
      const opens = await create(
        sampleWebhook(account.id, 'https://opens.example/', { opened: true, uniqueOpen: true }),
      );
      await create(sampleWebhook(account.id, 'https://paused.example/', { opened: true }, false));
      await create(sampleWebhook(other.id, 'https://elsewhere.example/', { opened: true }));
      const ids = async (toggle: Parameters<MailplaneStore['webhooks']['listEnabledForEvent']>[1]) =>
        (await store().webhooks.listEnabledForEvent(account.id, toggle)).map((w) => w.id);
      expect(await ids('opened')).toEqual([both.id, opens.id]);
      expect(await ids('clicked')).toEqual([both.id]);
      expect(await ids('uniqueOpen')).toEqual([opens.id]);
      expect(await ids('spam')).toEqual([]);
      await store().webhooks.update(account.id, both.id, { enabled: false, updated: 3n });
      expect(await ids('opened')).toEqual([opens.id]);
    });
  });
}
