/**
 * Pooled SMTP connections to one server: up to `maxConnections` open at once, each reused for
 * transaction after transaction; messages wait in order for a free connection.
 *
 * A server that stalls must not gather the senders of every message for it (each holds a delivery
 * slot while it waits): until a transaction has finished on the pool it opens at most
 * `initialConnections`, and a message waits for a connection only while the pool makes progress
 * (a transaction finishes at least every `stallTimeoutMs`); otherwise it is handed back (`EBUSY`)
 * and waits in the store's queue, without an attempt counted (src/delivery/deliver.ts).
 */
import {
  SmtpConnection,
  type SmtpConnectionOptions,
  type SmtpEnvelope,
  type SmtpTransaction,
} from './smtp-connection.js';
import type { MessageBytes } from './dot-stuffing.js';
import { SmtpError } from './smtp-protocol.js';
import type { ConnectionGate } from '../../../src/delivery/transport.js';

/** Options of {@link SmtpPool}. */
export interface SmtpPoolOptions extends SmtpConnectionOptions {
  /** Connections open at once (default 10). */
  maxConnections?: number;
  /** Connections open at once until one transaction has finished on the pool (default 2). */
  initialConnections?: number;
  /** How long a waiting message stays in line while no transaction of the pool finishes (default 10 s). */
  stallTimeoutMs?: number;
  /** Transactions on one connection before it is closed (QUIT) and another opened (default: no limit). */
  maxMessagesPerConnection?: number;
  /** How long a connection may stay unused before it is closed (default: until the server closes it). */
  idleTimeoutMs?: number;
  /** Asked before each new connection, told when it closes: a count shared over the cluster (traffic shaping). */
  gate?: ConnectionGate;
}

/** The limits of a pool that traffic shaping may change while it is open (`SmtpPool.setLimits`). */
export type SmtpPoolLimits = Pick<
  SmtpPoolOptions,
  'maxConnections' | 'maxMessagesPerConnection' | 'idleTimeoutMs' | 'gate'
>;

/** How long a connection under a shared count is reused before it is replaced (as Postfix's `smtp_connection_reuse_time_limit`). */
const GATED_REUSE_MS = 300_000;

interface Task {
  envelope: SmtpEnvelope;
  message: MessageBytes;
  resolve: (transaction: SmtpTransaction) => void;
  reject: (error: unknown) => void;
  /** Already sent again once after a reused connection turned out to be dead. */
  retried?: boolean;
  /** Hands the message back when the pool stalls while it waits. */
  stallTimer?: NodeJS.Timeout;
}

/** A pool of connections to one server. */
export class SmtpPool {
  private readonly idle: SmtpConnection[] = [];
  private readonly queue: Task[] = [];
  /** Connections opening or open. */
  private open = 0;
  /** Connections that opened and are still open. */
  private established = 0;
  private closed = false;
  /** When a transaction last finished (monotonic ms), or null before the first. */
  private lastProgressAt: number | null = null;
  private limits: SmtpPoolLimits;
  /** Closes each idle connection once it has been unused for `idleTimeoutMs`. */
  private readonly idleTimers = new Map<SmtpConnection, NodeJS.Timeout>();
  /** When each connection the shared count allowed was opened (monotonic ms). */
  private readonly openedAt = new Map<SmtpConnection, number>();

  constructor(private readonly options: SmtpPoolOptions) {
    this.limits = {
      maxConnections: options.maxConnections,
      maxMessagesPerConnection: options.maxMessagesPerConnection,
      idleTimeoutMs: options.idleTimeoutMs,
      gate: options.gate,
    };
  }

  /**
   * Changes the limits (traffic shaping lowers them after a throttling reply and raises them as
   * the source recovers). Connections over a lowered maximum close as their transactions end.
   */
  setLimits(limits: SmtpPoolLimits): void {
    this.limits = { ...this.limits, ...limits };
  }

  /** Connections the pool may have open now: a few until it has shown it works, then its maximum. */
  private get connectionLimit(): number {
    const max = this.limits.maxConnections ?? 10;
    return this.lastProgressAt === null ? Math.min(max, this.options.initialConnections ?? 2) : max;
  }

  /**
   * Sends `message` in one transaction on a pooled connection. Resolves with what the server
   * replied (refusals included); rejects with an {@link SmtpError} when no reply decided it.
   */
  send(envelope: SmtpEnvelope, message: MessageBytes): Promise<SmtpTransaction> {
    if (this.closed) return Promise.reject(new SmtpError('ECONNECTION', 'the connection pool is closed'));
    return new Promise((resolve, reject) => {
      const task: Task = { envelope, message, resolve, reject };
      this.queue.push(task);
      this.pump();
      if (this.queue.includes(task)) this.watchStall(task);
    });
  }

  /** Hands `task` back if no transaction of the pool finishes for `stallTimeoutMs` while it waits. */
  private watchStall(task: Task): void {
    const ms = this.options.stallTimeoutMs ?? 10_000;
    const since = performance.now();
    task.stallTimer = setTimeout(() => {
      const at = this.queue.indexOf(task);
      if (at === -1) return;
      if (this.lastProgressAt !== null && this.lastProgressAt > since) return this.watchStall(task);
      this.queue.splice(at, 1);
      task.reject(this.busy(`no transaction finished in ${ms} ms`));
    }, ms);
    task.stallTimer.unref();
  }

  private busy(why: string): SmtpError {
    return new SmtpError('EBUSY', `${this.options.host} is busy (${why}): the message waits without an attempt`);
  }

  /** Takes the first waiting message off the line. */
  private take(): Task {
    const task = this.queue.shift()!;
    clearTimeout(task.stallTimer);
    return task;
  }

  /** Puts an unused connection in the idle list, closing it after `idleTimeoutMs` if nothing takes it. */
  private park(connection: SmtpConnection): void {
    this.idle.push(connection);
    const ms = this.limits.idleTimeoutMs;
    if (ms === undefined) return;
    const timer = setTimeout(() => {
      this.idleTimers.delete(connection);
      const at = this.idle.indexOf(connection);
      if (at === -1) return;
      this.idle.splice(at, 1);
      void connection.quit();
    }, ms);
    timer.unref();
    this.idleTimers.set(connection, timer);
  }

  /** Takes an idle connection to use. */
  private unpark(): SmtpConnection | undefined {
    const connection = this.idle.pop();
    if (connection) {
      clearTimeout(this.idleTimers.get(connection));
      this.idleTimers.delete(connection);
    }
    return connection;
  }

  /**
   * Whether a connection has carried its share of transactions, is one too many after the limits
   * were lowered, or (under a shared count, whose lease it must not outlive) has been reused long enough.
   */
  private spent(connection: SmtpConnection): boolean {
    const most = this.limits.maxMessagesPerConnection;
    const opened = this.openedAt.get(connection);
    return (
      (most !== undefined && connection.transactions >= most) ||
      this.open > this.connectionLimit ||
      (opened !== undefined && performance.now() - opened > GATED_REUSE_MS)
    );
  }

  /** Closes idle connections now and busy ones when their transaction ends; queued messages fail. */
  close(): void {
    this.closed = true;
    for (const timer of this.idleTimers.values()) clearTimeout(timer);
    this.idleTimers.clear();
    for (const task of this.queue.splice(0)) {
      clearTimeout(task.stallTimer);
      task.reject(new SmtpError('ECONNECTION', 'the connection pool was closed'));
    }
    for (const connection of this.idle.splice(0)) void connection.quit();
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      const connection = this.unpark();
      if (connection) {
        if (connection.usable) void this.run(connection, this.take());
      } else if (this.open < this.connectionLimit) {
        void this.connect(this.take());
      } else {
        return;
      }
    }
  }

  private async connect(task: Task): Promise<void> {
    this.open += 1;
    const gate = this.limits.gate;
    if (gate && !(await gate.open())) {
      this.open -= 1;
      // Other nodes hold the source's connections to this destination: wait for one of this pool's
      // own, or, with none open, hand the message back to wait in the queue (no attempt counted).
      if (this.established > 0 && !this.closed) {
        this.queue.unshift(task);
        this.watchStall(task);
      } else {
        task.reject(this.busy('every connection the source may have to it is open'));
      }
      return;
    }
    const connection = new SmtpConnection(this.options);
    let opened = false;
    if (gate) this.openedAt.set(connection, performance.now());
    connection.onClose(() => {
      if (gate) {
        this.openedAt.delete(connection);
        gate.closed();
      }
      this.open -= 1;
      if (!opened) return; // a failed opening is handled below, before anything else is started
      this.established -= 1;
      const at = this.idle.indexOf(connection);
      if (at !== -1) this.idle.splice(at, 1);
      clearTimeout(this.idleTimers.get(connection));
      this.idleTimers.delete(connection);
      this.pump();
    });
    try {
      await connection.open();
    } catch (error) {
      // Nothing of a transaction was said: the refusal is the receiver's or the network's, not the message's.
      if (error instanceof SmtpError) error.beforeTransaction = true;
      connection.close();
      task.reject(error);
      // With no working connection to this server, what waits would meet the same failure one by
      // one, each after its own timeout: it fails now. With one working, the failure may be a
      // passing limit (too many connections), and the messages wait for the working ones.
      if (this.established === 0) {
        for (const waiting of this.queue.splice(0)) {
          clearTimeout(waiting.stallTimer);
          waiting.reject(error);
        }
      }
      this.pump();
      return;
    }
    opened = true;
    this.established += 1;
    await this.run(connection, task);
  }

  private async run(connection: SmtpConnection, task: Task): Promise<void> {
    const reused = connection.transactions > 0;
    let released = false;
    // The connection takes the next message once this one is written (pipelining) or answered.
    const release = () => {
      if (released) return;
      released = true;
      if (this.closed || (connection.usable && this.spent(connection))) void connection.quit();
      else if (connection.usable) this.park(connection);
      this.pump();
    };
    try {
      const transaction = await connection.send(
        task.envelope,
        task.message,
        connection.pipelining ? release : undefined,
      );
      this.lastProgressAt = performance.now();
      task.resolve(transaction);
    } catch (error) {
      // A reused connection the server closed while it was idle fails before any reply: that is
      // not the message's fault, and nothing reached the server, so it goes once more on a fresh one.
      if (reused && !task.retried && error instanceof SmtpError && error.beforeTransaction) {
        this.queue.unshift({ ...task, retried: true, stallTimer: undefined });
      } else {
        task.reject(error);
      }
    }
    release();
  }
}
