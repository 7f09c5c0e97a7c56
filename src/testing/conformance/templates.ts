import { vitest } from '../vitest.js';
import type { MailplaneStore, NewTemplate, TemplateContent } from '../../store/index.js';
import { newAccount, newSubAccount } from './fixtures.js';

const CREATED = 1_733_844_681_120_384_511n;

/** A valid new template for `subAccountId`. */
function sampleTemplate(
  subAccountId: number,
  name: string,
  content: TemplateContent = { subject: 'Hi {{name}}', htmlBody: '<p>{{name}}</p>' },
): NewTemplate {
  return { subAccountId, name, content, created: CREATED };
}

async function twoSubAccounts(store: MailplaneStore) {
  const account = await newAccount(store);
  return [await newSubAccount(store, account.id), await newSubAccount(store, account.id)] as const;
}

async function created(store: MailplaneStore, input: NewTemplate) {
  const outcome = await store.templates.create(input);
  if (!outcome.ok) throw new Error(`create failed: ${outcome.reason}`);
  return outcome.value;
}

/** Stored templates: uniqueness per sub-account, scoping, search, versions kept and activated. */
export function templateStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('templates', () => {
    it('creates a template as version 1, active, and reads it back by id and by name in any case', async () => {
      const [sub] = await twoSubAccounts(store());
      const template = await created(store(), sample(sub.id));
      expect(template).toMatchObject({
        subAccountId: sub.id,
        name: 'Welcome Mail',
        activeVersion: 1,
        latestVersion: 1,
        subject: 'Hi {{name}}',
        created: CREATED,
        updated: CREATED,
      });
      expect(template.active).toEqual({
        templateId: template.id,
        version: 1,
        subject: 'Hi {{name}}',
        htmlBody: '<p>{{name}}</p>',
        created: CREATED,
      });
      expect(await store().templates.get(sub.id, template.id)).toEqual(template);
      expect(await store().templates.findByName(sub.id, 'welcome MAIL')).toEqual(template);
      expect(await store().templates.findByName(sub.id, 'welcome')).toBeNull();
    });

    it('refuses a duplicate name (case-insensitively) in one sub-account, allows it in another, and lets one of 20 concurrent creates win', async () => {
      const [a, b] = await twoSubAccounts(store());
      await created(store(), sample(a.id));
      expect(await store().templates.create(sampleTemplate(a.id, 'WELCOME mail'))).toEqual({
        ok: false,
        reason: 'duplicate-name',
      });
      expect((await store().templates.create(sample(b.id))).ok).toBe(true);
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, () => store().templates.create(sampleTemplate(a.id, 'race'))),
      );
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(outcomes.filter((o) => !o.ok && o.reason === 'duplicate-name')).toHaveLength(19);
    });

    it('lists by id with limit, offset and a literal case-insensitive search, without bodies', async () => {
      const [sub, other] = await twoSubAccounts(store());
      for (const name of ['Alpha', 'beta', 'ALPHABET', 'a_b', 'axb', '100%'])
        await created(store(), sampleTemplate(sub.id, name));
      await created(store(), sampleTemplate(other.id, 'alpha'));
      const names = async (query: { limit: number; offset: number; search?: string }) =>
        (await store().templates.list(sub.id, query)).map((t) => t.name);
      expect(await names({ limit: 10, offset: 0 })).toEqual(['Alpha', 'beta', 'ALPHABET', 'a_b', 'axb', '100%']);
      expect(await names({ limit: 2, offset: 1 })).toEqual(['beta', 'ALPHABET']);
      expect(await names({ limit: 10, offset: 0, search: 'alpha' })).toEqual(['Alpha', 'ALPHABET']);
      expect(await names({ limit: 10, offset: 0, search: '_' })).toEqual(['a_b']);
      expect(await names({ limit: 10, offset: 0, search: '%' })).toEqual(['100%']);
      const [first] = await store().templates.list(sub.id, { limit: 1, offset: 0 });
      expect(first).toEqual({
        id: first!.id,
        subAccountId: sub.id,
        name: 'Alpha',
        activeVersion: 1,
        latestVersion: 1,
        subject: 'Hi {{name}}',
        created: CREATED,
        updated: CREATED,
      });
    });

    it('makes each content update a new active version, keeps the newest ones, and renames without a version', async () => {
      const [sub] = await twoSubAccounts(store());
      const template = await created(store(), sample(sub.id));
      for (let n = 2; n <= 6; n++) {
        const outcome = await store().templates.update(sub.id, template.id, {
          content: { subject: `v${n}`, textBody: `text ${n}` },
          keepVersions: 3,
          updated: BigInt(n),
        });
        if (!outcome.ok) throw new Error(outcome.reason);
        expect(outcome.value).toMatchObject({
          activeVersion: n,
          latestVersion: n,
          subject: `v${n}`,
          updated: BigInt(n),
        });
        expect(outcome.value.active).toEqual({
          templateId: template.id,
          version: n,
          subject: `v${n}`,
          textBody: `text ${n}`,
          created: BigInt(n),
        });
      }
      expect((await store().templates.listVersions(sub.id, template.id))!.map((v) => v.version)).toEqual([4, 5, 6]);
      expect(await store().templates.getVersion(sub.id, template.id, 3)).toBeNull();
      expect(await store().templates.getVersion(sub.id, template.id, 4)).toEqual({
        templateId: template.id,
        version: 4,
        subject: 'v4',
        textBody: 'text 4',
        created: 4n,
      });
      const renamed = await store().templates.update(sub.id, template.id, {
        name: 'Renamed',
        keepVersions: 3,
        updated: 7n,
      });
      expect(renamed.ok && renamed.value).toMatchObject({
        name: 'Renamed',
        activeVersion: 6,
        latestVersion: 6,
        updated: 7n,
      });
      expect(await store().templates.findByName(sub.id, 'welcome mail')).toBeNull();
    });

    it('refuses a rename to another template’s name and answers not-found for a missing or foreign one', async () => {
      const [a, b] = await twoSubAccounts(store());
      const one = await created(store(), sample(a.id));
      const two = await created(store(), sampleTemplate(a.id, 'Second'));
      expect(
        await store().templates.update(a.id, two.id, { name: 'WELCOME MAIL', keepVersions: 20, updated: 2n }),
      ).toEqual({ ok: false, reason: 'duplicate-name' });
      const same = await store().templates.update(a.id, one.id, {
        name: 'WELCOME MAIL',
        keepVersions: 20,
        updated: 2n,
      });
      expect(same.ok && same.value.name).toBe('WELCOME MAIL');
      expect(await store().templates.update(b.id, one.id, { name: 'x', keepVersions: 20, updated: 2n })).toEqual({
        ok: false,
        reason: 'not-found',
      });
      expect(await store().templates.update(a.id, 2_000_000_000, { name: 'x', keepVersions: 20, updated: 2n })).toEqual(
        { ok: false, reason: 'not-found' },
      );
    });

    it('gives 10 concurrent updates 10 distinct versions', async () => {
      const [sub] = await twoSubAccounts(store());
      const template = await created(store(), sample(sub.id));
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store().templates.update(sub.id, template.id, {
            content: { subject: `c${i}`, textBody: 't' },
            keepVersions: 20,
            updated: 2n,
          }),
        ),
      );
      const versions = outcomes.map((o) => (o.ok ? o.value.activeVersion : 0)).sort((x, y) => x - y);
      expect(versions).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      expect((await store().templates.listVersions(sub.id, template.id))!).toHaveLength(11);
    });

    it('activates a kept version, refuses one not kept, and scopes versions by sub-account', async () => {
      const [a, b] = await twoSubAccounts(store());
      const template = await created(store(), sample(a.id));
      await store().templates.update(a.id, template.id, {
        content: { subject: 'v2', textBody: 't' },
        keepVersions: 20,
        updated: 2n,
      });
      const back = await store().templates.activate(a.id, template.id, 1, 3n);
      expect(back.ok && back.value).toMatchObject({
        activeVersion: 1,
        latestVersion: 2,
        subject: 'Hi {{name}}',
        updated: 3n,
      });
      expect((await store().templates.get(a.id, template.id))!.active.version).toBe(1);
      expect(await store().templates.activate(a.id, template.id, 9, 3n)).toEqual({
        ok: false,
        reason: 'no-such-version',
      });
      expect(await store().templates.activate(b.id, template.id, 1, 3n)).toEqual({ ok: false, reason: 'not-found' });
      expect(await store().templates.get(b.id, template.id)).toBeNull();
      expect(await store().templates.listVersions(b.id, template.id)).toBeNull();
      expect(await store().templates.getVersion(b.id, template.id, 1)).toBeNull();
      expect(await store().templates.list(b.id, { limit: 10, offset: 0 })).toEqual([]);
      // An update after going back makes the next number, active.
      const next = await store().templates.update(a.id, template.id, {
        content: { subject: 'v3', ampBody: '<p>amp</p>' },
        keepVersions: 20,
        updated: 4n,
      });
      expect(next.ok && next.value.active).toEqual({
        templateId: template.id,
        version: 3,
        subject: 'v3',
        ampBody: '<p>amp</p>',
        created: 4n,
      });
    });

    it('deletes a template with its versions, only in its own sub-account, and with its sub-account', async () => {
      const [a, b] = await twoSubAccounts(store());
      const template = await created(store(), sample(a.id));
      expect(await store().templates.delete(b.id, template.id)).toBe(false);
      expect(await store().templates.delete(a.id, template.id)).toBe(true);
      expect(await store().templates.delete(a.id, template.id)).toBe(false);
      expect(await store().templates.getVersion(a.id, template.id, 1)).toBeNull();
      expect((await store().templates.create(sample(a.id))).ok).toBe(true);
      const kept = await created(store(), sample(b.id));
      expect(await store().subAccounts.delete(a.accountId, a.id)).toBe(true);
      expect(await store().templates.list(a.id, { limit: 10, offset: 0 })).toEqual([]);
      expect(await store().templates.get(b.id, kept.id)).toEqual(kept);
    });
  });
}

const sample = (subAccountId: number) => sampleTemplate(subAccountId, 'Welcome Mail');
