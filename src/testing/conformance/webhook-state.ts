import { vitest } from '../vitest.js';
import type { MailplaneStore, NewWebhook } from '../../store/index.js';
import { newAccount } from './fixtures.js';
import { sampleWebhook } from './webhooks.js';

const DAY = 86_400_000_000_000n;
const T = 1_780_000_000_000_000_000n;

/** Webhook state beyond the resource: secret rotation fields, the failure streak and auto-disable, replay claims. */
export function webhookStateConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('webhook state', () => {
    const create = async (input: NewWebhook) => {
      const outcome = await store().webhooks.create(input);
      if (!outcome.ok) throw new Error(`fixture webhook ${input.url}: ${outcome.reason}`);
      return outcome.value;
    };

    it('keeps a previous secret and its end, and clears them and the disabled fields with null', async () => {
      const account = await newAccount(store());
      const hook = await create(sampleWebhook(account.id, 'https://rotate.example/'));
      const rotated = await store().webhooks.update(account.id, hook.id, {
        secretSealed: 'new',
        previousSecretSealed: hook.secretSealed,
        previousSecretUntil: T + DAY,
        updated: T,
      });
      expect(rotated).toEqual({
        ok: true,
        value: {
          ...hook,
          secretSealed: 'new',
          previousSecretSealed: hook.secretSealed,
          previousSecretUntil: T + DAY,
          updated: T,
        },
      });
      const cleared = await store().webhooks.update(account.id, hook.id, {
        previousSecretSealed: null,
        previousSecretUntil: null,
        disabledReason: null,
        disabledAt: null,
        failingSince: null,
        updated: T + 1n,
      });
      expect(cleared.ok && cleared.value).toMatchObject({
        secretSealed: 'new',
        previousSecretSealed: null,
        previousSecretUntil: null,
        disabledReason: null,
      });
    });

    it('rotates atomically: the stored secret becomes the previous one, also under concurrent rotations', async () => {
      const account = await newAccount(store());
      const hook = await create(sampleWebhook(account.id, 'https://rotating.example/'));
      const rotate = (secret: string, at: bigint) =>
        store().webhooks.update(account.id, hook.id, {
          rotateTo: { secretSealed: secret, previousUntil: at + DAY },
          updated: at,
        });
      expect(await rotate('first', T)).toEqual({
        ok: true,
        value: {
          ...hook,
          secretSealed: 'first',
          previousSecretSealed: hook.secretSealed,
          previousSecretUntil: T + DAY,
          updated: T,
        },
      });
      // Ten at once: whatever their order, each one's previous secret is the one stored when it wrote,
      // so the last one's previous is another rotation's secret, never one read before them all.
      const secrets = Array.from({ length: 10 }, (_, i) => `concurrent-${i}`);
      const outcomes = await Promise.all(secrets.map((secret) => rotate(secret, T + 1n)));
      expect(outcomes.every((o) => o.ok)).toBe(true);
      const final = (await store().webhooks.get(account.id, hook.id))!;
      expect(secrets).toContain(final.secretSealed);
      expect(secrets.filter((s) => s !== final.secretSealed)).toContain(final.previousSecretSealed);
      // The previous secrets the ten saw form one chain from 'first': each secret is some rotation's previous at most once.
      const previous = outcomes.map((o) => o.ok && o.value.previousSecretSealed);
      expect(new Set(previous).size).toBe(10);
      expect(previous).toContain('first');
      expect(
        (
          await store().webhooks.update(account.id, hook.id + 1000, {
            rotateTo: { secretSealed: 'x', previousUntil: T },
            updated: T,
          })
        ).ok,
      ).toBe(false);
    });

    it('starts a failure streak, ends it on a success, and disables once the streak is old enough', async () => {
      const account = await newAccount(store());
      const hook = await create(sampleWebhook(account.id, 'https://failing.example/', { delivered: true }));
      const fail = (at: bigint) =>
        store().webhooks.recordDeliveryOutcome(account.id, hook.id, {
          ok: false,
          at,
          disableAfter: 5n * DAY,
          reason: 'kept failing',
        });
      expect(await fail(T)).toBeNull();
      expect(await fail(T + DAY)).toBeNull();
      expect((await store().webhooks.get(account.id, hook.id))!.failingSince).toBe(T);
      // A success ends the streak: the next failure starts a new one.
      expect(
        await store().webhooks.recordDeliveryOutcome(account.id, hook.id, {
          ok: true,
          at: T + 2n * DAY,
          disableAfter: 5n * DAY,
          reason: '',
        }),
      ).toBeNull();
      expect((await store().webhooks.get(account.id, hook.id))!.failingSince).toBeNull();
      expect(await fail(T + 3n * DAY)).toBeNull();
      expect(await fail(T + 7n * DAY)).toBeNull();
      const outcomes = await Promise.all(Array.from({ length: 5 }, () => fail(T + 8n * DAY)));
      const disabled = outcomes.filter((o) => o !== null);
      expect(disabled).toHaveLength(1);
      expect(disabled[0]).toMatchObject({
        id: hook.id,
        enabled: false,
        disabledReason: 'kept failing',
        disabledAt: T + 8n * DAY,
        failingSince: T + 3n * DAY,
      });
      expect(await store().webhooks.listEnabledForEvent(account.id, 'delivered')).toEqual([]);
      // Another account's id answers nothing and changes nothing.
      const other = await newAccount(store(), 'other');
      expect(
        await store().webhooks.recordDeliveryOutcome(other.id, hook.id, {
          ok: true,
          at: T,
          disableAfter: DAY,
          reason: '',
        }),
      ).toBeNull();
      expect((await store().webhooks.get(account.id, hook.id))!.failingSince).toBe(T + 3n * DAY);
    });

    it('lets one of concurrent replays claim a webhook, takes over a stale claim, and releases only its own', async () => {
      const account = await newAccount(store());
      const hook = await create(sampleWebhook(account.id, 'https://replay.example/'));
      const claim = (replayId: string, at: bigint, staleBefore = at - DAY) =>
        store().webhooks.claimReplay(account.id, hook.id, { replayId, at, staleBefore });
      const wins = await Promise.all(['r1', 'r2', 'r3', 'r4'].map((id) => claim(id, T)));
      expect(wins.filter(Boolean)).toHaveLength(1);
      const holder = ['r1', 'r2', 'r3', 'r4'][wins.indexOf(true)]!;
      expect(await store().webhooks.get(account.id, hook.id)).toMatchObject({ replayId: holder, replayClaimedAt: T });
      expect(await claim(holder, T + 5n)).toBe(true);
      expect(await claim('late', T + 10n)).toBe(false);
      await store().webhooks.releaseReplay(account.id, hook.id, 'late');
      expect((await store().webhooks.get(account.id, hook.id))!.replayId).toBe(holder);
      expect(await claim('late', T + 2n * DAY)).toBe(true);
      await store().webhooks.releaseReplay(account.id, hook.id, 'late');
      expect(await store().webhooks.get(account.id, hook.id)).toMatchObject({ replayId: null, replayClaimedAt: null });
      const other = await newAccount(store(), 'other');
      expect(await store().webhooks.claimReplay(other.id, hook.id, { replayId: 'x', at: T, staleBefore: T })).toBe(
        false,
      );
    });
  });
}
