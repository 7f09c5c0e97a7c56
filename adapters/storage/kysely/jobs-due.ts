/**
 * Wake-ups of job runners when jobs are enqueued (`MailplaneStore.onJobsDue`). In the process that
 * enqueued them the signal is raised once the transaction has committed. On PostgreSQL the enqueue
 * also runs `pg_notify('mailplane_jobs', <instance id>)` in its transaction (delivered at commit,
 * never for a rollback), and every store instance keeps one dedicated connection that LISTENs on
 * the channel and raises the signal for the other instances' notifications: a job enqueued on one
 * node starts on another within milliseconds. When that connection drops it reconnects with
 * backoff (and wakes its runners once, for what was enqueued meanwhile); polling covers the gap.
 */
import { randomUUID } from 'node:crypto';

/** The PostgreSQL channel job notifications go through. */
export const JOBS_CHANNEL = 'mailplane_jobs';

/** First and longest wait before the listening connection is opened again after it dropped. */
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 10_000;

/** What the listener needs of a `pg.Client` (a new, unconnected one per call of the factory). */
export interface ListenClient {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string | undefined }) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
}

/** The wake-up signal of one store instance (shared by the stores its transactions hand out). */
export class JobsDueSignal {
  /** Names this instance in its notifications, so it does not wake itself twice. */
  readonly instanceId = randomUUID();
  private readonly listeners = new Set<() => void>();
  private listening: PgJobListener | undefined;
  private closed = false;

  /** @param connect opens a dedicated PostgreSQL connection (none: this process's enqueues only). */
  constructor(private readonly connect?: () => ListenClient) {}

  /** Calls every listener (after this instance's enqueue committed, or another's notification). */
  emit(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A listener's fault is its own: the others still wake.
      }
    }
  }

  /** Adds a listener; the first one opens the listening connection. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    if (this.connect && !this.listening && !this.closed) this.listening = new PgJobListener(this.connect, this);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Whether the LISTEN connection is up (PostgreSQL only). */
  get connected(): boolean {
    return this.listening?.connected ?? false;
  }

  /** Closes the listening connection (`store.close()`). */
  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.listening?.close();
  }
}

/** One LISTEN connection, opened again with backoff whenever it drops. */
class PgJobListener {
  connected = false;
  private client: ListenClient | undefined;
  private closed = false;
  private delayMs = RECONNECT_MIN_MS;
  /** Whether an earlier connection dropped or failed (then the first one up catches up). */
  private lapsed = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly connect: () => ListenClient,
    private readonly signal: JobsDueSignal,
  ) {
    void this.open();
  }

  private async open(): Promise<void> {
    if (this.closed) return;
    let client: ListenClient;
    try {
      client = this.connect();
    } catch {
      // A client that cannot even be built (bad settings) is retried like a refused connection.
      this.lapsed = true;
      this.retry();
      return;
    }
    this.client = client;
    let dropped = false;
    const drop = () => {
      if (dropped) return;
      dropped = true;
      this.connected = false;
      this.lapsed = true;
      void client.end().catch(() => {});
      this.retry();
    };
    // Unhandled, an 'error' on the client (server restart, admin termination) would crash the process.
    client.on('error', drop);
    client.on('end', drop);
    client.on('notification', (message) => {
      if (message.channel === JOBS_CHANNEL && message.payload !== this.signal.instanceId) this.signal.emit();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${JOBS_CHANNEL}`);
    } catch {
      drop();
      return;
    }
    if (this.closed || dropped) return;
    this.connected = true;
    this.delayMs = RECONNECT_MIN_MS;
    // Jobs enqueued while no connection listened were not announced: look once now.
    if (this.lapsed) this.signal.emit();
  }

  private retry() {
    if (this.closed) return;
    const wait = this.delayMs;
    this.delayMs = Math.min(RECONNECT_MAX_MS, this.delayMs * 2);
    this.timer = setTimeout(() => void this.open(), wait);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.connected = false;
    await this.client?.end().catch(() => {});
  }
}
