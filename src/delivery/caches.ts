/**
 * What delivery keeps between jobs, owned by the `DeliveryService` (src/delivery/service.ts)
 * and closed with it: compiled templates, DKIM keys, shared bulk bodies, the outcomes' group commit,
 * the DKIM signing threads, and the waits on jobs' abort signals.
 */
import { createGroupCommit, type GroupCommit } from '../store/group-commit.js';
import type { MailplaneStore } from '../store/index.js';
import { TemplateCache } from '../sending/render.js';
import type { TemplateCompiler } from '../template/renderer.js';
import { SharedBodyCache } from './body-cache.js';
import { DkimKeyCache } from './compose.js';
import { DkimSigner } from './dkim-signer.js';

/** What the caches are built from. */
export interface DeliveryCachesDeps {
  readonly store: MailplaneStore;
  readonly templateCompiler: TemplateCompiler;
}

/** Caches one worker keeps across jobs: compiled templates, DKIM keys, shared bodies of bulk batches. */
export interface DeliveryCaches {
  templates: TemplateCache;
  dkimKeys: DkimKeyCache;
  /** MIME bodies of recent bulk batches whose bodies do not vary per recipient. */
  bodies: SharedBodyCache;
  /** Where outcomes are committed: several per transaction (see {@link OUTCOME_LINGER_MS}). */
  outcomes: GroupCommit;
  /** The DKIM signatures' worker threads: batched, off the main thread and off libuv's pool. */
  signer: DkimSigner;
  /** What the sends of a job race against: its signal's abort. */
  aborts: AbortWaits;
}

/**
 * How long an outcome waits for others to share its transaction. Outcomes come one by one, as
 * servers answer, and each would otherwise be a transaction of its own (measured: 4,027 commits
 * for 4,000 messages), which costs more than its three rows. Nothing waits on an outcome but the
 * page job that sent it.
 */
export const OUTCOME_LINGER_MS = 10;

/** Fresh caches for one set of delivery handlers. */
export function createDeliveryCaches(deps: DeliveryCachesDeps): DeliveryCaches {
  return {
    templates: new TemplateCache(deps.templateCompiler),
    dkimKeys: new DkimKeyCache(),
    bodies: new SharedBodyCache(),
    outcomes: createGroupCommit(deps.store, 64, OUTCOME_LINGER_MS),
    signer: new DkimSigner(),
    aborts: new AbortWaits(),
  };
}

/** What {@link AbortWaits.of} resolves to: the job's signal aborted. */
export const ABORTED = Symbol('aborted');

/** Promises that resolve when a job's signal aborts: one listener per signal however many sends wait on it. */
export class AbortWaits {
  private readonly waits = new WeakMap<AbortSignal, Promise<typeof ABORTED>>();

  /** Resolves (to a marker) when `signal` aborts. */
  of(signal: AbortSignal): Promise<typeof ABORTED> {
    let promise = this.waits.get(signal);
    if (!promise) {
      promise = new Promise((resolve) => {
        if (signal.aborted) resolve(ABORTED);
        else signal.addEventListener('abort', () => resolve(ABORTED), { once: true });
      });
      this.waits.set(signal, promise);
    }
    return promise;
  }
}
