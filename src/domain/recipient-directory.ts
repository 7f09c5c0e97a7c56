/**
 * What `RCPT TO` asks of the store, remembered for a few seconds: whether a domain receives here and
 * its routes. Without it every recipient of every session costs two reads, and a sender that tries
 * thousands of addresses (a dictionary attack, a spam run at unknown domains) turns each into load
 * on the database. One directory serves an instance (its listeners and the sandbox catcher).
 *
 * A change made through this instance (a route created, changed or deleted, receiving enabled or
 * disabled) calls {@link InboundRecipientDirectory.changed}, so it counts from the next `RCPT TO` on.
 * Another node's change is seen once the entry ages out ({@link RECIPIENT_LOOKUP_TTL_MS}): the inbound
 * tables are not among those that bump the shared configuration version (src/cluster/cache-version.ts).
 */
import { normalizeName } from '../dns/names.js';
import type { Clock } from '../model/time.js';
import type { InboundDomainRecord, InboundRouteRecord, InboundStore } from '../store/inbound-store.js';

/** How long a domain's answer is reused. */
export const RECIPIENT_LOOKUP_TTL_MS = 5_000;

/** Domains remembered at once; beyond it the oldest answer goes first. */
export const RECIPIENT_LOOKUP_MAX_DOMAINS = 10_000;

/** A domain that receives mail here, with its routes. */
export interface ReceivingDomain {
  domain: InboundDomainRecord;
  routes: readonly InboundRouteRecord[];
}

interface Entry {
  /** `null`: the domain does not receive here (remembered too: unknown domains are what spam tries). */
  value: ReceivingDomain | null;
  until: number;
}

/** The remembered answers of one instance: see the module comment. */
export class InboundRecipientDirectory {
  readonly #entries = new Map<string, Entry>();
  /** Bumped by every change, so a lookup that started before one does not store what it read. */
  #generation = 0;

  constructor(
    private readonly store: { readonly inbound: Pick<InboundStore, 'receivingDomain' | 'routesForDomain'> },
    private readonly clock: Clock,
  ) {}

  /** The receiving domain named `name` and its routes, or `null` when it does not receive here. */
  async lookup(name: string): Promise<ReceivingDomain | null> {
    const key = normalizeName(name);
    const now = this.clock.now();
    const known = this.#entries.get(key);
    if (known && known.until > now) return known.value;
    const generation = this.#generation;
    const domain = await this.store.inbound.receivingDomain(key);
    const value = domain ? { domain, routes: await this.store.inbound.routesForDomain(domain.name) } : null;
    if (generation === this.#generation) this.#remember(key, { value, until: now + RECIPIENT_LOOKUP_TTL_MS });
    return value;
  }

  /** Routes or receiving domains changed: every answer is read again. */
  changed(): void {
    this.#generation++;
    this.#entries.clear();
  }

  /** Domains remembered; for tests of the bound. */
  get size(): number {
    return this.#entries.size;
  }

  #remember(key: string, entry: Entry): void {
    this.#entries.delete(key);
    // A Map iterates in insertion order: its first key is the answer read longest ago.
    while (this.#entries.size >= RECIPIENT_LOOKUP_MAX_DOMAINS) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, entry);
  }
}
