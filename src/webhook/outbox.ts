/**
 * The transactional outbox of webhook events. Every event mailplane records goes through
 * `MessageStore.addEvents` or `insertAccepted`; this store decorator adds, in the same
 * transaction, one `webhook-events` job carrying the events that some webhook of their account
 * has switched on. An event is therefore posted if and only if it was committed, whichever code
 * path recorded it (acceptance, delivery outcomes, unsubscribes), with no second write per event.
 *
 * Whether an account has a webhook for an event kind is remembered for a few seconds, so accounts
 * without webhooks pay nothing per event; webhook writes through this store forget the account at
 * once. Other processes' writes: when the store is shared (`MailplaneStore.cacheVersion`, the
 * Kysely store on PostgreSQL), a remembered "no webhook" is trusted only while the configuration
 * version read in the same transaction is the one it was remembered at (src/cluster/cache-version.ts),
 * so a webhook created on another node counts from the next event on. A remembered "has a webhook"
 * needs no check: the delivery job reads the webhooks again and posts to those switched on then.
 */
import { CacheVersionWatch } from '../cluster/cache-version.js';
import { WEBHOOK_EVENTS_JOB, type JobPayload, type MailplaneJobs } from '../jobs/kinds.js';
import { enqueueJobs } from '../jobs/queue.js';
import type { Clock } from '../model/time.js';
import type { EventRecord, MailplaneStore, MessageStore, WebhookStore, WebhookToggle } from '../store/index.js';
import { togglesForEvent } from './toggles.js';

/** How long the answer to "does this account have a webhook for this event kind" is reused. */
export const WEBHOOK_PRESENCE_TTL_MS = 5_000;

/** An event as a `webhook-events` job carries it (JSON: `created` as a decimal string). */
export type OutboxEvent = JobPayload<typeof WEBHOOK_EVENTS_JOB>['events'][number];

/** What {@link withWebhookOutbox} needs. */
export interface WebhookOutboxOptions {
  clock: Clock;
  /** Called after a transaction that enqueued events commits (wakes this process's job runner). */
  onEnqueued?: () => void;
}

const toOutboxEvent = (event: EventRecord): OutboxEvent => ({ ...event, created: event.created.toString() });

/** The event back from a job's payload. */
export function fromOutboxEvent(event: OutboxEvent): EventRecord {
  return { ...event, created: BigInt(event.created) };
}

/** `store` with the webhook outbox: see the module comment. */
export function withWebhookOutbox(store: MailplaneStore, options: WebhookOutboxOptions): MailplaneStore {
  const presence = new Map<string, { subscribed: boolean; until: number }>();
  /** The shared configuration version the remembered answers were read at. */
  const presenceVersion = new CacheVersionWatch();
  const forget = (accountId: number) => {
    for (const key of presence.keys()) if (key.startsWith(`${accountId}:`)) presence.delete(key);
  };

  /** The events of `events` that some webhook wants, read in `tx` when not remembered. */
  async function wanted(tx: MailplaneStore, events: readonly EventRecord[]): Promise<OutboxEvent[]> {
    const out: OutboxEvent[] = [];
    let versionChecked = false;
    const subscribed = async (accountId: number, toggle: WebhookToggle) => {
      const key = `${accountId}:${toggle}`;
      let known = presence.get(key);
      // At most one version read per outboxed write, and only when a "no" is about to be trusted.
      if (known && !known.subscribed && !versionChecked) {
        versionChecked = true;
        if (await presenceVersion.changed(tx)) {
          presence.clear();
          known = undefined;
        }
      }
      const now = options.clock.now();
      if (!known || known.until <= now) {
        known = {
          subscribed: (await tx.webhooks.listEnabledForEvent(accountId, toggle)).length > 0,
          until: now + WEBHOOK_PRESENCE_TTL_MS,
        };
        presence.set(key, known);
      }
      return known.subscribed;
    };
    for (const event of events) {
      for (const toggle of togglesForEvent(event.type, event.metadata)) {
        if (await subscribed(event.accountId, toggle)) {
          out.push(toOutboxEvent(event));
          break;
        }
      }
    }
    return out;
  }

  function wrap(inner: MailplaneStore, transaction: { enqueued: boolean } | null): MailplaneStore {
    /**
     * Runs `write` and then the outbox in one transaction. Outside a transaction it opens one and
     * runs `write` against its (wrapped) store, whose method then takes the branch below.
     */
    const outboxed = async (
      events: readonly EventRecord[],
      write: (s: MailplaneStore) => Promise<void>,
    ): Promise<void> => {
      if (!transaction) return wrapped.transaction((tx) => write(tx));
      await write(inner);
      const out = await wanted(inner, events);
      if (out.length === 0) return;
      await enqueueJobs<MailplaneJobs>(inner, options.clock.now(), [
        { kind: WEBHOOK_EVENTS_JOB, payload: { events: out } },
      ]);
      transaction.enqueued = true;
    };
    const messages: MessageStore = Object.create(inner.messages, {
      addEvents: { value: (events: readonly EventRecord[]) => outboxed(events, (s) => s.messages.addEvents(events)) },
      insertAccepted: {
        value: (...args: Parameters<MessageStore['insertAccepted']>) =>
          outboxed(args[2], (s) => s.messages.insertAccepted(...args)),
      },
    });
    const forgetting = <K extends 'create' | 'update' | 'delete'>(
      name: K,
      accountIdOf: (args: Parameters<WebhookStore[K]>) => number,
    ) => ({
      value: async (...args: Parameters<WebhookStore[K]>) => {
        const result = await (
          inner.webhooks[name] as (...a: Parameters<WebhookStore[K]>) => ReturnType<WebhookStore[K]>
        )(...args);
        forget(accountIdOf(args));
        return result;
      },
    });
    const webhooks: WebhookStore = Object.create(inner.webhooks, {
      create: forgetting('create', ([input]) => input.accountId),
      update: forgetting('update', ([accountId]) => accountId),
      delete: forgetting('delete', ([accountId]) => accountId),
    });
    const wrapped: MailplaneStore = Object.create(inner, {
      messages: { value: messages },
      webhooks: { value: webhooks },
      transaction: {
        value: async <T>(work: (tx: MailplaneStore) => Promise<T>): Promise<T> => {
          if (transaction) return inner.transaction((tx) => work(wrap(tx, transaction)));
          const state = { enqueued: false };
          const result = await inner.transaction((tx) => work(wrap(tx, state)));
          if (state.enqueued) options.onEnqueued?.();
          return result;
        },
      },
    });
    return wrapped;
  }
  return wrap(store, null);
}
