import { vitest } from '../vitest.js';
import type { EventRecord, MailplaneStore, MessageRecord, SendBatchRecord } from '../../store/index.js';
import { newAccount, newSubAccount } from './fixtures.js';

const T0 = 1_733_844_681_120_384_511n;

/** A UUID-shaped id whose order is its number's (so paging by id is predictable in every collation). */
export const orderedId = (prefix: number, n: number) =>
  `${prefix.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** A send batch of `subAccountId` with every optional content field filled. */
export function sampleBatch(id: string, accountId: number, subAccountId: number): SendBatchRecord {
  return {
    id,
    accountId,
    subAccountId,
    domainId: null,
    created: T0,
    content: {
      from: { email: 'sender@example.com', name: 'Sender' },
      replyTo: { email: 'reply@example.com', name: '' },
      subject: 'Hello {{name}}',
      preText: 'Pre',
      htmlBody: '<p>Hi</p>',
      textBody: 'Hi',
      headers: { 'X-Campaign': 'c-1' },
      groups: ['news', 'weekly'],
      ippool: 'warm',
      trackOpens: true,
      trackClicks: false,
      attachments: [{ filename: 'a.txt', content: 'aGk=' }],
    },
  };
}

/** A queued message of `batch` to `email`, with cc and bcc lists and custom fields. */
export function sampleMessage(
  batch: SendBatchRecord,
  id: string,
  email: string,
  extra: Partial<MessageRecord> = {},
): MessageRecord {
  return {
    id,
    batchId: batch.id,
    accountId: batch.accountId,
    subAccountId: batch.subAccountId,
    to: { email, name: 'Recipient' },
    cc: [{ email: 'cc@example.com', name: 'Cc', customFields: { role: 'cc' } }],
    bcc: [],
    customFields: { name: 'Ada', plan: 'pro' },
    copyOf: null,
    separateCopies: true,
    status: 'queued',
    attempts: 0,
    submittedAt: T0,
    updated: T0,
    ipId: null,
    ipPoolId: null,
    tpspId: null,
    smtpCode: null,
    smtpDescription: '',
    ...extra,
  };
}

/** An event of `message`. */
export function sampleEvent(message: MessageRecord, id: string, type: EventRecord['type'], created = T0): EventRecord {
  return {
    id,
    messageId: message.id,
    accountId: message.accountId,
    subAccountId: message.subAccountId,
    type,
    created,
    metadata: { smtpCode: 250, note: 'ok' },
  };
}

/** Messages and their events: atomic accept, scoping, queued paging, copies, outcomes exactly once. */
export function messageStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  /** An account with a sub-account and one accepted batch of three messages (one of them a cc copy). */
  async function accepted(prefix = 1) {
    const account = await newAccount(store());
    const sub = await newSubAccount(store(), account.id);
    const batch = sampleBatch(orderedId(prefix, 0), account.id, sub.id);
    const first = sampleMessage(batch, orderedId(prefix, 1), 'ada@example.com');
    const second = sampleMessage(batch, orderedId(prefix, 2), 'bob@example.com', { customFields: {} });
    const copy = sampleMessage(batch, orderedId(prefix, 3), 'CC@Example.com', {
      cc: [],
      copyOf: { messageId: first.id, kind: 'cc', to: { email: 'ada@example.com', name: 'Recipient' } },
    });
    const events = [first, second, copy].map((m, i) => sampleEvent(m, orderedId(prefix + 100, i), 0));
    await store().transaction((tx) => tx.messages.insertAccepted(batch, [first, second, copy], events));
    return { account, sub, batch, messages: [first, second, copy] as const, events };
  }

  describe('messages', () => {
    it('writes the batch, its messages and events, read back exactly through every reader', async () => {
      const { account, batch, messages, events } = await accepted();
      const [first, second, copy] = messages;
      expect(await store().messages.get(account.id, first.id)).toEqual({ message: first, batch });
      expect(await store().messages.getForDelivery(copy.id)).toEqual({ message: copy, batch });
      expect(await store().messages.listQueued(batch.id, 10)).toEqual([first, second, copy]);
      expect(await store().messages.listEvents(second.id)).toEqual([events[1]]);
      expect(await store().messages.findCopy(batch.id, first.id, 'cc@example.com')).toEqual(copy);
    });

    it('makes accepted mail visible only when the transaction commits; a failed one leaves nothing in any reader', async () => {
      const account = await newAccount(store());
      const sub = await newSubAccount(store(), account.id);
      const batch = sampleBatch(orderedId(7, 0), account.id, sub.id);
      const message = sampleMessage(batch, orderedId(7, 1), 'lost@example.com');
      await expect(
        store().transaction(async (tx) => {
          await tx.messages.insertAccepted(batch, [message], [sampleEvent(message, orderedId(7, 50), 0)]);
          // The transaction sees its own writes.
          expect(await tx.messages.getForDelivery(message.id)).toEqual({ message, batch });
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(await store().messages.get(account.id, message.id)).toBeNull();
      expect(await store().messages.getForDelivery(message.id)).toBeNull();
      expect(await store().messages.listQueued(batch.id, 10)).toEqual([]);
      expect(await store().messages.listEvents(message.id)).toEqual([]);
    });

    it('fails insertAccepted as a whole in a transaction when one of its events repeats an existing id', async () => {
      const { account, events } = await accepted();
      const batch = sampleBatch(orderedId(8, 0), account.id, events[0]!.subAccountId);
      const message = sampleMessage(batch, orderedId(8, 1), 'dup@example.com');
      const clash = { ...sampleEvent(message, events[0]!.id, 0) };
      await expect(
        store().transaction((tx) => tx.messages.insertAccepted(batch, [message], [clash])),
      ).rejects.toThrow();
      expect(await store().messages.getForDelivery(message.id)).toBeNull();
      expect(await store().messages.listQueued(batch.id, 10)).toEqual([]);
      expect(await store().messages.listEvents(events[0]!.messageId)).toEqual([events[0]]);
    });

    it('scopes get by account; getForDelivery reads by id alone', async () => {
      const { messages } = await accepted();
      const other = await newAccount(store(), 'other');
      expect(await store().messages.get(other.id, messages[0].id)).toBeNull();
      expect(await store().messages.get(messages[0].accountId, orderedId(99, 99))).toBeNull();
      expect(await store().messages.getForDelivery(orderedId(99, 99))).toBeNull();
      expect((await store().messages.getForDelivery(messages[0].id))?.message.id).toBe(messages[0].id);
    });

    it('lists the queued messages of one batch by id, with a limit and an after-id cursor', async () => {
      const { batch, messages } = await accepted(1);
      const { messages: others } = await accepted(2);
      const ids = async (limit: number, afterId?: string) =>
        (await store().messages.listQueued(batch.id, limit, afterId)).map((m) => m.id);
      expect(await ids(2)).toEqual([messages[0].id, messages[1].id]);
      expect(await ids(2, messages[1].id)).toEqual([messages[2].id]);
      expect(await ids(10, messages[2].id)).toEqual([]);
      // A message that left `queued` is no longer listed.
      expect(
        await store().messages.recordOutcome(messages[1].id, ['queued'], { status: 'deferred', updated: T0 + 1n }),
      ).toBe(true);
      expect(await ids(10)).toEqual([messages[0].id, messages[2].id]);
      expect((await store().messages.listQueued(others[0].batchId, 10)).map((m) => m.id)).toEqual(
        others.map((m) => m.id),
      );
    });

    it('lists every message of one batch by id whatever its status, with a limit and an after-id cursor, and a scheduled send content round trip', async () => {
      const { batch, messages } = await accepted(3);
      const { messages: others } = await accepted(4);
      const ids = async (limit: number, afterId?: string) =>
        (await store().messages.listBatch(batch.id, limit, afterId)).map((m) => m.id);
      // Scheduled and cancelled messages are listed as any other status.
      expect(
        await store().messages.recordOutcome(messages[0].id, ['queued'], { status: 'scheduled', updated: T0 + 1n }),
      ).toBe(true);
      expect(
        await store().messages.recordOutcome(messages[1].id, ['queued'], { status: 'cancelled', updated: T0 + 1n }),
      ).toBe(true);
      expect(await ids(2)).toEqual([messages[0].id, messages[1].id]);
      expect(await ids(10, messages[1].id)).toEqual([messages[2].id]);
      expect((await store().messages.listBatch(batch.id, 10)).map((m) => m.status)).toEqual([
        'scheduled',
        'cancelled',
        'queued',
      ]);
      expect((await store().messages.listBatch(others[0].batchId, 10)).map((m) => m.id)).toEqual(
        others.map((m) => m.id),
      );
      expect(await store().messages.listBatch(orderedId(43, 0), 10)).toEqual([]);
      // A batch's sendAt is kept exactly (nanoseconds beyond 2^53).
      const account = await newAccount(store(), 'scheduled');
      const sub = await newSubAccount(store(), account.id);
      const base = sampleBatch(orderedId(44, 0), account.id, sub.id);
      const scheduled = { ...base, content: { ...base.content, sendAt: '1777640400123456789' } };
      const message = {
        ...sampleMessage(scheduled, orderedId(44, 1), 'later@example.com'),
        status: 'scheduled' as const,
      };
      await store().messages.insertAccepted(scheduled, [message], []);
      expect(await store().messages.getForDelivery(message.id)).toEqual({ message, batch: scheduled });
    });

    it('finds a copy by batch, original message and address compared case-insensitively', async () => {
      const { batch, messages } = await accepted();
      const [first, second, copy] = messages;
      expect(await store().messages.findCopy(batch.id, first.id, 'CC@EXAMPLE.COM')).toEqual(copy);
      // Not a copy of that message, not in that batch, or not a copy at all: null.
      expect(await store().messages.findCopy(batch.id, second.id, 'cc@example.com')).toBeNull();
      expect(await store().messages.findCopy(orderedId(42, 0), first.id, 'cc@example.com')).toBeNull();
      expect(await store().messages.findCopy(batch.id, first.id, 'ada@example.com')).toBeNull();
    });

    it('adds events and lists a message’s events oldest first, with exact times and metadata', async () => {
      const { messages, events } = await accepted();
      const [first, second] = messages;
      const later = sampleEvent(first, orderedId(300, 1), 2, T0 + 5n);
      const between = {
        ...sampleEvent(first, orderedId(300, 2), 5, T0 + 2n),
        metadata: { userAgent: 'UA', nested: { a: [1, 2] } },
      };
      await store().messages.addEvents([later, between]);
      await store().messages.addEvents([]);
      expect(await store().messages.listEvents(first.id)).toEqual([events[0], between, later]);
      expect(await store().messages.listEvents(second.id)).toEqual([events[1]]);
      expect(await store().messages.listEvents(orderedId(99, 99))).toEqual([]);
    });

    it('keeps event ids unique: adding an existing id rejects and changes nothing', async () => {
      const { messages, events } = await accepted();
      const fresh = sampleEvent(messages[0], orderedId(400, 1), 2, T0 + 9n);
      await expect(store().messages.addEvents([fresh, { ...events[0]!, type: 4 }])).rejects.toThrow();
      // One statement (or one transaction of the caller's) failed: neither event was added.
      expect(await store().messages.listEvents(messages[0].id)).toEqual([events[0]]);
    });

    it('records an outcome only from the given statuses, changing only the fields given', async () => {
      const { account, messages } = await accepted();
      const [first] = messages;
      const outcome = {
        status: 'delivered' as const,
        attempts: 1,
        smtpCode: 250,
        smtpDescription: '250 ok',
        ipId: 3,
        ipPoolId: 4,
        tpspId: null,
        updated: T0 + 7n,
      };
      expect(await store().messages.recordOutcome(first.id, ['deferred'], outcome)).toBe(false);
      expect(await store().messages.recordOutcome(orderedId(99, 99), ['queued'], outcome)).toBe(false);
      expect(await store().messages.recordOutcome(first.id, ['queued', 'deferred'], outcome)).toBe(true);
      const moved = {
        ...first,
        status: 'delivered',
        attempts: 1,
        smtpCode: 250,
        smtpDescription: '250 ok',
        ipId: 3,
        ipPoolId: 4,
        tpspId: null,
        updated: T0 + 7n,
      };
      expect((await store().messages.get(account.id, first.id))?.message).toEqual(moved);
      expect((await store().messages.getForDelivery(first.id))?.message).toEqual(moved);
      // Omitted fields stay; a terminal status is left only where the caller allows it.
      expect(
        await store().messages.recordOutcome(first.id, ['queued', 'deferred'], {
          status: 'hard_bounced',
          updated: T0 + 8n,
        }),
      ).toBe(false);
      expect(
        await store().messages.recordOutcome(first.id, ['delivered'], { status: 'hard_bounced', updated: T0 + 8n }),
      ).toBe(true);
      expect((await store().messages.get(account.id, first.id))?.message).toEqual({
        ...moved,
        status: 'hard_bounced',
        updated: T0 + 8n,
      });
    });

    it('records each attempt exactly once when duplicate workers race on it', async () => {
      const { messages } = await accepted();
      const attempt = (n: number) => ({
        status: 'deferred' as const,
        attempts: n,
        smtpCode: 451,
        smtpDescription: 'later',
        updated: T0 + BigInt(n),
      });
      const first = await Promise.all(
        Array.from({ length: 10 }, () =>
          store().messages.recordOutcome(messages[0].id, ['queued', 'deferred'], attempt(1)),
        ),
      );
      expect(first.filter(Boolean)).toHaveLength(1);
      // The same attempt again (a retry job run twice) no longer applies; the next one does.
      expect(await store().messages.recordOutcome(messages[0].id, ['queued', 'deferred'], attempt(1))).toBe(false);
      expect(await store().messages.recordOutcome(messages[0].id, ['queued', 'deferred'], attempt(2))).toBe(true);
      expect((await store().messages.getForDelivery(messages[0].id))?.message).toMatchObject({
        status: 'deferred',
        attempts: 2,
      });
    });
  });
}
