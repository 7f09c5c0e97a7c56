/**
 * The transactional outbox of webhook events. The two writers of events call it in the transaction
 * that records them: the lifecycle writer for each event it appends (src/lifecycle/events.ts) and
 * acceptance for the events of a send (src/sending/accept.ts). It adds, in that transaction, one
 * `webhook-events` job carrying the events that some webhook of their account has switched on. An
 * event is therefore posted if and only if it was committed, with no second write per event. The
 * job wakes the runner through the store once the transaction commits (`MailplaneStore.onJobsDue`;
 * a store without it is polled).
 *
 * Whether an account has a webhook for an event kind is remembered for a few seconds, so accounts
 * without webhooks pay nothing per event; the webhook service makes it forget an account whose
 * webhooks it changes. Other processes' writes: when the store is shared (`MailplaneStore.cacheVersion`, the
 * Kysely store on PostgreSQL), a remembered "no webhook" is trusted only while the configuration
 * version read in the same transaction is the one it was remembered at (src/cluster/cache-version.ts),
 * so a webhook created on another node counts from the next event on. A remembered "has a webhook"
 * needs no check: the delivery job reads the webhooks again and posts to those switched on then.
 */
import { CacheVersionWatch } from '../cluster/cache-version.js';
import { WEBHOOK_EVENTS_JOB, type JobPayload, type MailplaneJobs } from '../jobs/kinds.js';
import { enqueueJobs } from '../jobs/queue.js';
import type { Clock } from '../model/time.js';
import type { EventRecord, MailplaneStore, WebhookToggle } from '../store/index.js';
import { togglesForEvent } from './webhook-toggles.js';

/** How long the answer to "does this account have a webhook for this event kind" is reused. */
export const WEBHOOK_PRESENCE_TTL_MS = 5_000;

/** An event as a `webhook-events` job carries it (JSON: `created` as a decimal string). */
export type OutboxEvent = JobPayload<typeof WEBHOOK_EVENTS_JOB>['events'][number];

const toOutboxEvent = (event: EventRecord): OutboxEvent => ({ ...event, created: event.created.toString() });

/** The event back from a job's payload. */
export function fromOutboxEvent(event: OutboxEvent): EventRecord {
  return { ...event, created: BigInt(event.created) };
}

/** The webhook outbox of one instance: see the module comment. */
export class WebhookOutbox {
  /** Per `account:toggle`: whether some webhook wants it, until when that answer is trusted. */
  readonly #presence = new Map<string, { subscribed: boolean; until: number }>();
  /** The shared configuration version the remembered answers were read at. */
  readonly #presenceVersion = new CacheVersionWatch();

  constructor(private readonly clock: Clock) {}

  /**
   * Queues, through `tx` (the transaction that records `events`), one `webhook-events` job with the
   * events some webhook wants. Answers whether it queued one.
   */
  async add(tx: MailplaneStore, events: readonly EventRecord[]): Promise<boolean> {
    const wanted = await this.#wanted(tx, events);
    if (wanted.length === 0) return false;
    await enqueueJobs<MailplaneJobs>(tx, this.clock.now(), [{ kind: WEBHOOK_EVENTS_JOB, payload: { events: wanted } }]);
    return true;
  }

  /** The webhooks of `accountId` changed: the next event reads them again. */
  forget(accountId: number): void {
    for (const key of this.#presence.keys()) if (key.startsWith(`${accountId}:`)) this.#presence.delete(key);
  }

  /** The events of `events` that some webhook wants, read in `tx` when not remembered. */
  async #wanted(tx: MailplaneStore, events: readonly EventRecord[]): Promise<OutboxEvent[]> {
    const wanted: OutboxEvent[] = [];
    const versionCheck = { done: false };
    for (const event of events) {
      for (const toggle of togglesForEvent(event.type, event.metadata)) {
        if (await this.#subscribed(tx, event.accountId, toggle, versionCheck)) {
          wanted.push(toOutboxEvent(event));
          break;
        }
      }
    }
    return wanted;
  }

  async #subscribed(
    tx: MailplaneStore,
    accountId: number,
    toggle: WebhookToggle,
    versionCheck: { done: boolean },
  ): Promise<boolean> {
    const key = `${accountId}:${toggle}`;
    let known = this.#presence.get(key);
    // At most one version read per outboxed write, and only when a "no" is about to be trusted.
    if (known && !known.subscribed && !versionCheck.done) {
      versionCheck.done = true;
      if (await this.#presenceVersion.changed(tx)) {
        this.#presence.clear();
        known = undefined;
      }
    }
    const now = this.clock.now();
    if (!known || known.until <= now) {
      known = {
        subscribed: (await tx.webhooks.listEnabledForEvent(accountId, toggle)).length > 0,
        until: now + WEBHOOK_PRESENCE_TTL_MS,
      };
      this.#presence.set(key, known);
    }
    return known.subscribed;
  }
}
