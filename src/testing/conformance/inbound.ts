import { vitest } from '../vitest.js';
import type { InboundMessageRecord, MailplaneStore, NewInboundRoute } from '../../store/index.js';
import { sampleDomain } from './domains.js';
import { newAccount, newSubAccount, unique } from './fixtures.js';

/** The time the fixtures are received at. */
export const T = 1_790_000_000_000_000_000n;

/** A sub-account with one domain (named `name`, unique unless given) that receives mail. */
export async function receivingSubAccount(store: MailplaneStore, name = `${unique('in')}.example.com`) {
  const account = await newAccount(store);
  const sub = await newSubAccount(store, account.id);
  const domain = await store.domains.create(sampleDomain(sub.id, name));
  if (!domain.ok) throw new Error('fixture domain');
  const enabled = await store.inbound.enableDomain(sub.id, domain.value.id, T);
  if (!enabled.ok) throw new Error('fixture receiving domain');
  return { accountId: account.id, subAccountId: sub.id, domain: domain.value, inbound: enabled.value };
}

/** A route on `domain` of the sub-account, `support@<domain>` unless `localPart` says otherwise. */
export function sampleRoute(
  owner: { accountId: number; subAccountId: number },
  domain: string,
  extra: Partial<NewInboundRoute> = {},
): NewInboundRoute {
  const localPart = extra.localPart ?? 'support';
  return {
    accountId: owner.accountId,
    subAccountId: owner.subAccountId,
    pattern: `${localPart}@${domain}`,
    kind: 'exact',
    domain,
    localPart,
    action: 'webhook',
    url: 'https://hooks.example.com/inbound',
    secretSealed: 'sealed-secret',
    forwardTo: null,
    created: T,
    ...extra,
  };
}

/** A received message of the owner, every field filled; `raw` holds bytes that are not UTF-8. */
export function sampleMessage(
  owner: { accountId: number; subAccountId: number },
  extra: Partial<InboundMessageRecord> = {},
) {
  const message: InboundMessageRecord = {
    id: crypto.randomUUID(),
    accountId: owner.accountId,
    subAccountId: owner.subAccountId,
    routeId: null,
    receivedAt: T,
    mailFrom: 'someone@sender.example',
    rcptTo: 'support@acme.example',
    from: 'someone@sender.example',
    subject: 'Où est ma commande ?',
    messageIdHeader: 'abc@sender.example',
    inReplyToMessageId: null,
    size: 6,
    raw: Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0d, 0x0a]),
    auth: { spf: 'pass', dkim: 'none', dmarc: 'fail', arc: 'none' },
    status: 'pending',
    detail: '',
    updated: T,
    ...extra,
  };
  return message;
}

/** Receiving: domains, routes and messages, each scoped by sub-account (src/store/inbound-store.ts). */
export function inboundStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('inbound', () => {
    it("enables only the sub-account's own domain, once, and finds it by name across accounts", async () => {
      const mine = await receivingSubAccount(store());
      const theirs = await receivingSubAccount(store());
      expect(mine.inbound).toEqual({
        domainId: mine.domain.id,
        accountId: mine.accountId,
        subAccountId: mine.subAccountId,
        name: mine.domain.name,
        enabledAt: T,
        mxVerified: false,
        mxFailureReason: '',
        mxCheckedAt: 0n,
      });
      expect(await store().inbound.enableDomain(mine.subAccountId, theirs.domain.id, T)).toEqual({
        ok: false,
        reason: 'not-found',
      });
      expect(await store().inbound.enableDomain(mine.subAccountId, 2_000_000_000, T)).toEqual({
        ok: false,
        reason: 'not-found',
      });
      await store().inbound.setMxCheck(mine.domain.id, { verified: false, reason: 'no MX record', at: T + 5n });
      const again = await store().inbound.enableDomain(mine.subAccountId, mine.domain.id, T + 9n);
      const checked = { ...mine.inbound, mxFailureReason: 'no MX record', mxCheckedAt: T + 5n };
      expect(again).toEqual({ ok: true, value: checked });
      expect(await store().inbound.getDomain(mine.subAccountId, mine.domain.id)).toEqual(checked);
      expect(await store().inbound.getDomain(mine.subAccountId, theirs.domain.id)).toBeNull();
      expect(await store().inbound.listDomains(mine.subAccountId)).toEqual([checked]);
      expect(await store().inbound.receivingDomain(`${mine.domain.name.toUpperCase()}.`)).toEqual(checked);
      await store().inbound.setMxCheck(mine.domain.id, { verified: true, reason: 'ignored', at: T + 6n });
      expect(await store().inbound.getDomain(mine.subAccountId, mine.domain.id)).toMatchObject({
        mxVerified: true,
        mxFailureReason: '',
        mxCheckedAt: T + 6n,
      });
    });

    it('disables a domain, keeping its routes asleep until it receives again, and forgets a deleted domain', async () => {
      const mine = await receivingSubAccount(store());
      const other = await receivingSubAccount(store());
      const route = await store().inbound.createRoute(sampleRoute(mine, mine.domain.name));
      if (!route.ok) throw new Error('fixture route');
      expect(await store().inbound.disableDomain(other.subAccountId, mine.domain.id)).toBe(false);
      expect(await store().inbound.routesForDomain(mine.domain.name)).toEqual([route.value]);
      expect(await store().inbound.disableDomain(mine.subAccountId, mine.domain.id)).toBe(true);
      expect(await store().inbound.receivingDomain(mine.domain.name)).toBeNull();
      expect(await store().inbound.routesForDomain(mine.domain.name)).toEqual([]);
      expect(await store().inbound.getRoute(mine.subAccountId, route.value.id)).toEqual(route.value);
      await store().inbound.enableDomain(mine.subAccountId, mine.domain.id, T + 1n);
      expect(await store().inbound.routesForDomain(mine.domain.name)).toEqual([route.value]);
      expect(await store().domains.delete(mine.subAccountId, mine.domain.id)).toBe(true);
      expect(await store().inbound.getDomain(mine.subAccountId, mine.domain.id)).toBeNull();
      expect(await store().inbound.receivingDomain(mine.domain.name)).toBeNull();
    });

    it('refuses a route on a domain that does not receive and a second route of one pattern', async () => {
      const mine = await receivingSubAccount(store());
      const theirs = await receivingSubAccount(store());
      const foreign = await store().inbound.createRoute(sampleRoute(mine, theirs.domain.name));
      expect(foreign).toEqual({ ok: false, reason: 'domain-not-receiving' });
      const created = await store().inbound.createRoute(sampleRoute(mine, mine.domain.name));
      expect(created.ok).toBe(true);
      if (!created.ok) return;
      const { created: _c, ...fields } = sampleRoute(mine, mine.domain.name);
      expect(created.value).toMatchObject({ ...fields, updated: T });
      const twice = await store().inbound.createRoute(sampleRoute(mine, mine.domain.name, { action: 'store' }));
      expect(twice).toEqual({ ok: false, reason: 'duplicate-pattern' });
      // The same pattern in another sub-account is another route.
      const elsewhere = await store().inbound.createRoute(sampleRoute(theirs, mine.domain.name));
      expect(elsewhere).toEqual({ ok: false, reason: 'domain-not-receiving' });
    });

    it('lets exactly one of two concurrent creates of a pattern win', async () => {
      const mine = await receivingSubAccount(store());
      const outcomes = await Promise.all([
        store().inbound.createRoute(sampleRoute(mine, mine.domain.name)),
        store().inbound.createRoute(sampleRoute(mine, mine.domain.name, { action: 'refuse', url: null })),
      ]);
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(outcomes.filter((o) => !o.ok)).toEqual([{ ok: false, reason: 'duplicate-pattern' }]);
      expect(await store().inbound.countRoutes(mine.subAccountId)).toBe(1);
    });

    it("updates only the fields given, checks the pattern and domain again, and hides another's route", async () => {
      const mine = await receivingSubAccount(store());
      const other = await receivingSubAccount(store());
      const first = await store().inbound.createRoute(sampleRoute(mine, mine.domain.name));
      const second = await store().inbound.createRoute(sampleRoute(mine, mine.domain.name, { localPart: 'sales' }));
      if (!first.ok || !second.ok) throw new Error('fixture routes');
      const id = second.value.id;
      const taken = await store().inbound.updateRoute(mine.subAccountId, id, {
        pattern: first.value.pattern,
        localPart: 'support',
        updated: T + 1n,
      });
      expect(taken).toEqual({ ok: false, reason: 'duplicate-pattern' });
      const moved = await store().inbound.updateRoute(mine.subAccountId, id, {
        pattern: `x@${other.domain.name}`,
        domain: other.domain.name,
        updated: T + 1n,
      });
      expect(moved).toEqual({ ok: false, reason: 'domain-not-receiving' });
      const foreign = await store().inbound.updateRoute(other.subAccountId, id, { action: 'store', updated: T + 1n });
      expect(foreign).toEqual({ ok: false, reason: 'not-found' });
      expect(await store().inbound.getRoute(mine.subAccountId, id)).toEqual(second.value);
      const changed = await store().inbound.updateRoute(mine.subAccountId, id, {
        action: 'forward',
        url: null,
        secretSealed: null,
        forwardTo: 'desk@elsewhere.example',
        updated: T + 2n,
      });
      const expected = { ...second.value, action: 'forward', url: null, secretSealed: null, updated: T + 2n };
      expect(changed).toEqual({ ok: true, value: { ...expected, forwardTo: 'desk@elsewhere.example' } });
      expect(await store().inbound.getRoute(other.subAccountId, id)).toBeNull();
      expect(await store().inbound.deleteRoute(other.subAccountId, id)).toBeNull();
      expect(await store().inbound.deleteRoute(mine.subAccountId, id)).toEqual(changed.ok ? changed.value : null);
      expect(await store().inbound.getRoute(mine.subAccountId, id)).toBeNull();
    });

    it('lists routes by id with paging, a literal case-insensitive search and a count', async () => {
      const mine = await receivingSubAccount(store());
      const other = await receivingSubAccount(store());
      const parts = ['a_b', 'axb', 'reply+', 'c%d', 'support'];
      for (const localPart of parts) {
        const kind = localPart.endsWith('+') ? 'prefix' : 'exact';
        const pattern = `${localPart}${kind === 'prefix' ? '*' : ''}@${mine.domain.name}`;
        const made = await store().inbound.createRoute(
          sampleRoute(mine, mine.domain.name, { localPart, kind, pattern }),
        );
        if (!made.ok) throw new Error(`fixture route ${localPart}`);
      }
      await store().inbound.createRoute(sampleRoute(other, other.domain.name));
      const all = await store().inbound.listRoutes(mine.subAccountId, { limit: 10, offset: 0 });
      expect(all.map((r) => r.localPart)).toEqual(parts);
      expect(all.map((r) => r.id)).toEqual([...all.map((r) => r.id)].sort((a, b) => a - b));
      const pageTwo = await store().inbound.listRoutes(mine.subAccountId, { limit: 2, offset: 2 });
      expect(pageTwo.map((r) => r.localPart)).toEqual(['reply+', 'c%d']);
      const literal = await store().inbound.listRoutes(mine.subAccountId, { limit: 10, offset: 0, search: 'A_B' });
      expect(literal.map((r) => r.localPart)).toEqual(['a_b']);
      expect(await store().inbound.countRoutes(mine.subAccountId, '%')).toBe(1);
      expect(await store().inbound.countRoutes(mine.subAccountId)).toBe(5);
      expect(await store().inbound.countRoutes(other.subAccountId)).toBe(1);
      expect(await store().inbound.listRoutes(other.subAccountId, { limit: 10, offset: 0, search: 'reply' })).toEqual(
        [],
      );
    });

    it('stores a message with its raw bytes exactly, only for its sub-account', async () => {
      const mine = await receivingSubAccount(store());
      const other = await receivingSubAccount(store());
      const message = sampleMessage(mine, { inReplyToMessageId: 'sent-1', size: 2_000_000_000 });
      await store().inbound.insertMessage(message);
      const read = await store().inbound.getMessage(mine.subAccountId, message.id);
      expect(read).toEqual(message);
      expect(Buffer.isBuffer(read?.raw)).toBe(true);
      expect(read?.raw?.equals(message.raw!)).toBe(true);
      expect(await store().inbound.getMessage(other.subAccountId, message.id)).toBeNull();
      expect(await store().inbound.listMessages(other.subAccountId, { limit: 10, offset: 0 })).toEqual([]);
      const withoutRaw = sampleMessage(mine, { raw: null, receivedAt: T + 1n });
      await store().inbound.insertMessage(withoutRaw);
      expect((await store().inbound.getMessage(mine.subAccountId, withoutRaw.id))?.raw).toBeNull();
      await store().inbound.setMessageStatus(message.id, 'failed', 'the webhook answered 500', T + 7n);
      expect(await store().inbound.getMessage(mine.subAccountId, message.id)).toEqual({
        ...message,
        status: 'failed',
        detail: 'the webhook answered 500',
        updated: T + 7n,
      });
    });

    it('lists messages newest first with paging, search and a route filter, and keeps them when the route goes', async () => {
      const mine = await receivingSubAccount(store());
      const route = await store().inbound.createRoute(sampleRoute(mine, mine.domain.name));
      if (!route.ok) throw new Error('fixture route');
      const ids = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b'];
      const messages = [
        sampleMessage(mine, { id: ids[0], receivedAt: T + 1n, routeId: route.value.id, subject: 'Invoice 42' }),
        sampleMessage(mine, { id: ids[1], receivedAt: T + 1n, subject: 'hello' }),
        sampleMessage(mine, { receivedAt: T + 2n, from: 'Boss@Corp.example', subject: 'x' }),
        sampleMessage(mine, { receivedAt: T, subject: 'oldest' }),
      ];
      for (const message of messages) await store().inbound.insertMessage(message);
      const list = await store().inbound.listMessages(mine.subAccountId, { limit: 10, offset: 0 });
      expect(list.map((m) => m.subject)).toEqual(['x', 'hello', 'Invoice 42', 'oldest']);
      const second = await store().inbound.listMessages(mine.subAccountId, { limit: 2, offset: 1 });
      expect(second.map((m) => m.subject)).toEqual(['hello', 'Invoice 42']);
      const search = (text: string) =>
        store().inbound.listMessages(mine.subAccountId, { limit: 10, offset: 0, search: text });
      expect((await search('invoice')).map((m) => m.id)).toEqual([ids[0]]);
      expect((await search('boss@corp')).map((m) => m.subject)).toEqual(['x']);
      const byRoute = await store().inbound.listMessages(mine.subAccountId, {
        limit: 10,
        offset: 0,
        routeId: route.value.id,
      });
      expect(byRoute.map((m) => m.id)).toEqual([ids[0]]);
      await store().inbound.deleteRoute(mine.subAccountId, route.value.id);
      expect((await store().inbound.getMessage(mine.subAccountId, ids[0]!))?.routeId).toBeNull();
    });

    it('deletes at most `limit` messages received before a time, oldest first', async () => {
      const mine = await receivingSubAccount(store());
      const times = [T, T + 1n, T + 2n, T + 3n];
      for (const receivedAt of times) await store().inbound.insertMessage(sampleMessage(mine, { receivedAt }));
      expect(await store().inbound.deleteMessagesBefore(T + 3n, 2)).toBe(2);
      const left = await store().inbound.listMessages(mine.subAccountId, { limit: 10, offset: 0 });
      expect(left.map((m) => m.receivedAt)).toEqual([T + 3n, T + 2n]);
      expect(await store().inbound.deleteMessagesBefore(T + 3n, 10)).toBe(1);
      expect(await store().inbound.deleteMessagesBefore(T + 3n, 10)).toBe(0);
    });
  });
}
