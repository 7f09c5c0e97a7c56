/**
 * Received mail in the activity (docs/activity.md, "Received messages"): the account's list of every
 * sub-account's received messages, its filters and cursor paging, the sub-account's list with the
 * same filters and item shape, one message by an account key, and the `replies` of a sent message.
 * On the inbound bench (test/support/inbound.ts): mail comes in through the real listener, on real
 * SQLite and PostgreSQL; another account receives on the same instance and never shows.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { createSubAccount } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { REMOTE_DOMAIN, startInboundEnv, type InboundEnv } from '../support/inbound.js';

/** A sub-account of the account `accountKey` receiving on `domainName`, with a `store` route taking `pattern`. */
async function receivingSubAccount(bench: InboundEnv, accountKey: string, domainName: string, pattern: string) {
  const { api } = bench.env;
  const sub = await createSubAccount(api, domainName, accountKey);
  const domain = await api.call('POST', '/subaccount/domain', { sub: sub.apiKey, body: { name: domainName } });
  expect(domain.status, domain.text).toBe(200);
  const store = contextOf(api.mailplane).store;
  // Verified in storage, as createSender does: the DNS check is not what these tests are about.
  await store.domains.updateVerification(sub.id, domain.body.id, { dkimVerified: true, verified: true, updated: 1n });
  const enabled = await store.inbound.enableDomain(sub.id, domain.body.id, 1n);
  expect(enabled.ok).toBe(true);
  const route = await api.call('POST', '/subaccount/route', { sub: sub.apiKey, body: { pattern, action: 'store' } });
  expect(route.status, route.text).toBe(201);
  return { id: sub.id, key: sub.apiKey, routeId: route.body.id as number };
}

/** Epoch nanoseconds of the bench's clock now, as query text (exact: the JSON bodies round them). */
const nowNsText = (bench: InboundEnv) => String(BigInt(bench.env.clock.now()) * 1_000_000n);

describe.each(storeKinds)('received messages in the activity (%s)', (kind) => {
  let bench: InboundEnv;
  beforeEach(async () => {
    bench = await startInboundEnv(kind);
  });
  afterEach(async () => {
    await bench?.close();
  });

  const account = (path: string, query?: Record<string, string | number>, key = bench.env.api.accountKey) =>
    bench.env.api.call('GET', `/account/inbound/message${path}`, { account: key, ...(query && { query }) });
  const subjects = (body: { items: { subject: string }[] }) => body.items.map((m) => m.subject);

  it("lists every sub-account's received mail for the account, filtered and cursor paged, never another account's", async () => {
    const { api } = bench.env;
    const support = await bench.route(`support@${bench.domain}`, 'store');
    const sibling = await receivingSubAccount(bench, api.accountKey, 'sibling.test', 'help@sibling.test');
    const stranger = await api.mailplane.createAccount({ name: 'stranger' });
    const theirs = await receivingSubAccount(bench, stranger.apiKey, 'stranger.test', '*@stranger.test');

    const times: Record<string, string> = {};
    for (const [to, subject] of [
      [`support@${bench.domain}`, 'One'],
      ['HELP@sibling.test', 'Two'],
      ['anyone@stranger.test', 'Three'],
      [`support@${bench.domain}`, 'Four'],
    ] as const) {
      bench.env.advance(1000);
      times[subject] = nowNsText(bench);
      await bench.submit({ to, subject, text: 'hello' });
    }

    const all = await account('');
    expect(all.status, all.text).toBe(200);
    expect(subjects(all.body)).toEqual(['Four', 'Two', 'One']);
    expect(all.body.nextCursor).toBeNull();
    expect(all.body.items[1]).toEqual({
      id: expect.any(String),
      envelope: { mailFrom: `alice@${REMOTE_DOMAIN}`, rcptTo: 'HELP@sibling.test' },
      from: `alice@${REMOTE_DOMAIN}`,
      subject: 'Two',
      messageIdHeader: expect.any(String),
      inReplyToMessageId: null,
      routeId: sibling.routeId,
      route: { id: sibling.routeId, pattern: 'help@sibling.test' },
      subAccountId: sibling.id,
      status: 'stored',
      detail: '',
      auth: { spf: 'pass', dkim: 'pass', dmarc: 'pass', arc: 'none' },
      size: expect.any(Number),
      receivedAt: expect.any(Number),
      updated: expect.any(Number),
      rawKept: true,
    });
    // The other account sees its own message only, and none of these.
    expect(subjects((await account('', undefined, stranger.apiKey)).body)).toEqual(['Three']);

    const filtered = async (query: Record<string, string | number>) => {
      const answer = await account('', query);
      expect(answer.status, answer.text).toBe(200);
      return subjects(answer.body);
    };
    expect(await filtered({ subAccountId: sibling.id })).toEqual(['Two']);
    expect(await filtered({ subAccountId: theirs.id })).toEqual([]);
    expect(await filtered({ routeId: support.id })).toEqual(['Four', 'One']);
    expect(await filtered({ status: 'stored' })).toEqual(['Four', 'Two', 'One']);
    expect(await filtered({ status: 'failed' })).toEqual([]);
    expect(await filtered({ sender: `ALICE@${REMOTE_DOMAIN}` })).toEqual(['Four', 'Two', 'One']);
    expect(await filtered({ recipient: 'help@SIBLING.test' })).toEqual(['Two']);
    expect(await filtered({ recipient: 'anyone@stranger.test' })).toEqual([]);
    expect(await filtered({ search: 'fou' })).toEqual(['Four']);
    expect(await filtered({ from: times.Two! })).toEqual(['Four', 'Two']);
    expect(await filtered({ to: times.Two! })).toEqual(['One']);
    expect(await filtered({ from: '2026-05-01', to: '2026-05-01' })).toEqual(['Four', 'Two', 'One']);
    expect(await filtered({ to: '2026-04-30' })).toEqual([]);

    // Cursor paging: each page starts strictly after the last item of the one before.
    const first = await account('', { limit: 2 });
    expect(subjects(first.body)).toEqual(['Four', 'Two']);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await account('', { limit: 2, cursor: first.body.nextCursor });
    expect(subjects(second.body)).toEqual(['One']);
    expect(second.body.nextCursor).toBeNull();

    for (const [query, code] of [
      [{ cursor: 'bm90IGEgY3Vyc29y' }, 'INVALID_CURSOR'],
      [{ status: 'delivered' }, 'VALIDATION_FAILED'],
      [{ offset: 1 }, 'VALIDATION_FAILED'],
    ] as const) {
      const refused = await account('', query);
      expect(refused.status, JSON.stringify(query)).toBe(422);
      expect(refused.body.code, JSON.stringify(query)).toBe(code);
    }

    // One message by the account key; another account's id is unknown, both ways.
    const two = all.body.items[1];
    expect((await account(`/${two.id}`)).body).toEqual(two);
    const three = (await account('', undefined, stranger.apiKey)).body.items[0];
    for (const [id, key] of [
      [three.id, api.accountKey],
      [two.id, stranger.apiKey],
    ]) {
      const unknown = await account(`/${id}`, undefined, key);
      expect(unknown.status).toBe(406);
      expect(unknown.body.code).toBe('INBOUND_MESSAGE_NOT_FOUND');
    }

    // The sub-account's list: the same items and filters, its own messages only.
    const own = (query: Record<string, string | number>, key = bench.env.key) =>
      api.call('GET', '/subaccount/inbound/message', { sub: key, query });
    const mine = await own({ sender: `alice@${REMOTE_DOMAIN}`, status: 'stored', from: times.One! });
    expect(mine.body).toEqual(all.body.items.filter((m: { subAccountId: number }) => m.subAccountId !== sibling.id));
    expect((await own({ recipient: 'help@sibling.test' })).body).toEqual([]);
    expect((await own({ recipient: 'help@sibling.test' }, sibling.key)).body).toEqual([two]);
    expect((await own({ to: times.Four! })).body.map((m: { subject: string }) => m.subject)).toEqual(['One']);

    // A deleted route leaves its messages, without a route.
    const deleted = await api.call('DELETE', `/subaccount/route/${sibling.routeId}`, { sub: sibling.key });
    expect(deleted.status, deleted.text).toBe(200);
    expect((await account(`/${two.id}`)).body).toMatchObject({ routeId: null, route: null });
  });

  it('answers the replies beside the sent message, newest first, at most 20, each key seeing its own', async () => {
    const { api } = bench.env;
    await bench.route(`reply+*@${bench.domain}`, 'store');
    const sibling = await receivingSubAccount(bench, api.accountKey, 'sibling.test', 'help@sibling.test');
    const stranger = await api.mailplane.createAccount({ name: 'stranger' });
    await receivingSubAccount(bench, stranger.apiKey, 'stranger.test', '*@stranger.test');
    const [sent] = await bench.env.send(['someone@rcpt.test'], { subject: 'Your order' });
    const [other] = await bench.env.send(['else@rcpt.test'], { subject: 'Unanswered' });
    const inReplyTo = `<${sent!.messageId}@${bench.domain}>`;
    for (const to of [`reply+1@${bench.domain}`, 'help@sibling.test', 'x@stranger.test']) {
      bench.env.advance(1000);
      await bench.submit({ to, subject: `Re: Your order (${to})`, text: 'thanks', inReplyTo });
    }

    const view = (id: string, path = '/account/message', key: Record<string, string> = { account: api.accountKey }) =>
      api.call('GET', `${path}/${id}`, key);
    const byAccount = await view(sent!.messageId);
    expect(byAccount.status, byAccount.text).toBe(200);
    // The stranger's message names the sent one too, but only the account's own mail is threaded to it.
    expect(byAccount.body.replies).toEqual([
      {
        id: expect.any(String),
        from: `alice@${REMOTE_DOMAIN}`,
        subject: 'Re: Your order (help@sibling.test)',
        receivedAt: expect.any(Number),
        status: 'stored',
      },
      expect.objectContaining({ subject: `Re: Your order (reply+1@${bench.domain})` }),
    ]);
    const replyIds = byAccount.body.replies.map((r: { id: string }) => r.id);
    const listed = await account('', { subAccountId: sibling.id });
    expect(listed.body.items[0]).toMatchObject({ id: replyIds[0], inReplyToMessageId: sent!.messageId });

    // A sub-account key sees the replies its own domains received.
    const bySub = await view(sent!.messageId, '/subaccount/message', { sub: bench.env.key });
    expect(bySub.body.replies.map((r: { id: string }) => r.id)).toEqual([replyIds[1]]);
    expect((await view(other!.messageId)).body.replies).toEqual([]);

    // Many replies: the newest 20.
    const store = contextOf(api.mailplane).store;
    const [template] = await store.inbound.listMessages(bench.env.sender.subAccount.id, { limit: 1, offset: 0 });
    const base = BigInt(bench.env.clock.now()) * 1_000_000n;
    for (let i = 1; i <= 20; i += 1)
      await store.inbound.insertMessage({
        ...template!,
        id: crypto.randomUUID(),
        subject: `Reply ${i}`,
        receivedAt: base + BigInt(i),
      });
    const many = (await view(sent!.messageId)).body.replies.map((r: { subject: string }) => r.subject);
    expect(many).toEqual(Array.from({ length: 20 }, (_, i) => `Reply ${20 - i}`));
  });
});
