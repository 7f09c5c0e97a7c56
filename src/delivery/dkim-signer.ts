/**
 * RSA signatures for DKIM on a dedicated worker thread, in batches. `crypto.sign`'s callback form
 * runs each signature as its own job on libuv's pool (4 threads by default): on a 2-core machine a
 * burst of 50 concurrent deliveries makes 4 signing threads runnable next to the main thread, and
 * each job's wake-up preempts the main thread, which composes every message and is delivery's
 * bottleneck (measured: 0.2 to 0.6 ms of main-thread wall time per signature, blocked in the call
 * that queues the job; docs/performance.md, "Delivery throughput"). One worker per spare core
 * (at least one) takes the signatures waiting when it becomes free, all in one message, signs them
 * synchronously and answers in one message: one wake-up per batch, and at most one signing thread
 * per spare core. Where a worker cannot start, or dies, signatures go back to libuv's pool.
 */
import { sign, type KeyObject } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * Signs `data` (SHA-256, RSA) with `key`. The data is a latin1 string (bytes 1:1; DKIM's canonical
 * header block is ASCII): a string crosses to a worker as itself, while a small Buffer is a view of
 * an 8 KB pool slab that postMessage would copy whole.
 */
export type SignFunction = (data: string, key: KeyObject) => Promise<Buffer>;

/** A signature on libuv's pool: what the signer falls back to. */
export const signOnPool: SignFunction = (data, key) =>
  new Promise<Buffer>((resolve, reject) =>
    sign('sha256', Buffer.from(data, 'latin1'), key, (error, signature) =>
      error ? reject(error) : resolve(signature),
    ),
  );

/**
 * The worker: keys arrive once each (KeyObjects cross threads by postMessage), then batches of
 * `[request id, key id, data]`, answered with `[request id, signature]` or `[request id, null, error]`.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { sign } = require('node:crypto');
let keys = new Map();
parentPort.on('message', ({ reset, keys: added, jobs }) => {
  if (reset) keys = new Map();
  for (const [id, key] of added) keys.set(id, key);
  const answers = [];
  for (const [id, keyId, data] of jobs) {
    try {
      answers.push([id, sign('sha256', Buffer.from(data, 'latin1'), keys.get(keyId))]);
    } catch (error) {
      answers.push([id, null, String(error && error.message)]);
    }
  }
  parentPort.postMessage(answers);
});
`;

/** A worker ends after this long without work (unreferenced meanwhile): an idle instance holds no thread. */
const IDLE_MS = 2000;
/** Most signatures in one batch: bounds how long the others wait behind it. */
const MAX_BATCH = 64;
/** Keys a worker holds before it is told to forget them all (keys rotate; memory stays bounded). */
const MAX_KEYS = 256;

interface Request {
  id: number;
  key: KeyObject;
  data: string;
  resolve: (signature: Buffer) => void;
  reject: (error: Error) => void;
}

/** One worker thread and what it was given. */
interface Lane {
  worker: Worker;
  keyIds: WeakMap<KeyObject, number>;
  keyCount: number;
  inFlight: Map<number, Request> | null;
  idleTimer: NodeJS.Timeout | null;
}

/**
 * Batched DKIM signatures on worker threads ({@link DkimSigner.sign}). One per instance, owned by
 * its `DeliveryService` (src/delivery/service.ts); its threads start on first use and end when idle,
 * or when the instance closes.
 */
export class DkimSigner {
  /** Signatures waiting for a worker: the urgent ones first (the first `urgentWaiting`), each group in order. */
  private readonly waiting: Request[] = [];
  private urgentWaiting = 0;
  private readonly lanes: (Lane | null)[];
  private nextId = 1;
  private nextKeyId = 1;
  private broken = false;

  /** @param threads worker threads (default: the cores besides the main thread's, at least one) */
  constructor(threads = Math.max(1, Math.min(4, availableParallelism() - 1))) {
    this.lanes = Array.from({ length: threads }, () => null);
  }

  /** The RSA-SHA256 signature of `data` with `key`. */
  readonly sign: SignFunction = (data, key) => this.request(data, key, false);

  /**
   * {@link sign} ahead of every signature not urgent that waits: transactional mail's, so that a
   * password reset is not signed after the hundreds of bulk messages in flight before it
   * (docs/shaping.md, "Fair queues and priority").
   */
  readonly signUrgent: SignFunction = (data, key) => this.request(data, key, true);

  private request(data: string, key: KeyObject, urgent: boolean): Promise<Buffer> {
    if (this.broken) return signOnPool(data, key);
    return new Promise<Buffer>((resolve, reject) => {
      const request = { id: this.nextId++, key, data, resolve, reject };
      if (urgent) this.waiting.splice(this.urgentWaiting++, 0, request);
      else this.waiting.push(request);
      this.dispatch();
    });
  }

  /** Ends the worker threads; signatures waiting or under way go to libuv's pool. */
  async close(): Promise<void> {
    this.fallBack();
    await Promise.all(this.lanes.map((lane, i) => lane && this.retire(i, lane)));
  }

  /** Hands what is waiting to free workers, starting one where none runs. */
  private dispatch(): void {
    for (let i = 0; i < this.lanes.length && this.waiting.length > 0; i++) {
      let lane = this.lanes[i];
      if (lane?.inFlight) continue;
      lane ??= this.start(i);
      if (!lane) return;
      // An even share for each free worker, at most MAX_BATCH: the rest waits for the next free one.
      const jobs = this.waiting.splice(0, Math.min(MAX_BATCH, Math.ceil(this.waiting.length / this.freeLanes())));
      this.urgentWaiting = Math.max(0, this.urgentWaiting - jobs.length);
      this.post(lane, jobs);
    }
  }

  private freeLanes(): number {
    return this.lanes.filter((lane) => !lane?.inFlight).length || 1;
  }

  private post(lane: Lane, jobs: Request[]): void {
    if (lane.idleTimer) clearTimeout(lane.idleTimer);
    lane.idleTimer = null;
    const reset = lane.keyCount >= MAX_KEYS;
    if (reset) {
      lane.keyIds = new WeakMap();
      lane.keyCount = 0;
    }
    const keys: [number, KeyObject][] = [];
    const batch: [number, number, string][] = [];
    lane.inFlight = new Map();
    for (const job of jobs) {
      let keyId = lane.keyIds.get(job.key);
      if (keyId === undefined) {
        keyId = this.nextKeyId++;
        lane.keyIds.set(job.key, keyId);
        lane.keyCount += 1;
        keys.push([keyId, job.key]);
      }
      lane.inFlight.set(job.id, job);
      batch.push([job.id, keyId, job.data]);
    }
    // Referenced while it owes answers: a pending signature keeps the process alive, an idle worker does not.
    lane.worker.ref();
    lane.worker.postMessage({ reset, keys, jobs: batch });
  }

  private start(index: number): Lane | null {
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SOURCE, { eval: true });
    } catch {
      this.fallBack();
      return null;
    }
    const lane: Lane = { worker, keyIds: new WeakMap(), keyCount: 0, inFlight: null, idleTimer: null };
    worker.on('message', (answers: [number, Uint8Array | null, string?][]) => this.answered(index, lane, answers));
    const failed = (error: unknown) => {
      if (this.lanes[index] === lane) this.lanes[index] = null;
      // What it held is signed on libuv's pool instead: a dying worker loses no message.
      for (const job of lane.inFlight?.values() ?? []) signOnPool(job.data, job.key).then(job.resolve, job.reject);
      lane.inFlight = null;
      // What waits for a worker must not wait for one that is gone: after an error or close() it
      // goes to libuv's pool, after any other exit to a worker started for it.
      if (error !== undefined || this.broken) this.fallBack();
      else this.dispatch();
    };
    worker.on('error', failed);
    worker.on('exit', () => failed(undefined));
    this.lanes[index] = lane;
    return lane;
  }

  private answered(index: number, lane: Lane, answers: [number, Uint8Array | null, string?][]): void {
    const inFlight = lane.inFlight;
    lane.inFlight = null;
    for (const [id, signature, error] of answers) {
      const job = inFlight?.get(id);
      if (!job) continue;
      if (signature) job.resolve(Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength));
      else job.reject(new Error(`DKIM signature failed: ${error}`));
    }
    if (this.waiting.length > 0) return this.dispatch();
    lane.worker.unref();
    lane.idleTimer = setTimeout(() => {
      if (this.lanes[index] === lane && !lane.inFlight) void this.retire(index, lane);
    }, IDLE_MS).unref();
  }

  private async retire(index: number, lane: Lane): Promise<void> {
    if (this.lanes[index] === lane) this.lanes[index] = null;
    if (lane.idleTimer) clearTimeout(lane.idleTimer);
    await lane.worker.terminate();
  }

  /** No worker can run here: every signature, waiting or to come, goes to libuv's pool. */
  private fallBack(): void {
    this.broken = true;
    this.urgentWaiting = 0;
    for (const job of this.waiting.splice(0)) signOnPool(job.data, job.key).then(job.resolve, job.reject);
  }
}
