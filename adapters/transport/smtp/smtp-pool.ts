/**
 * Pooled SMTP connections to one server: up to `maxConnections` open at once, each reused for
 * transaction after transaction; messages wait in order for a free connection.
 */
import { SmtpConnection, type SmtpConnectionOptions, type SmtpEnvelope, type SmtpTransaction } from './smtp-connection.js';
import type { MessageBytes } from './dot-stuffing.js';
import { SmtpError } from './smtp-protocol.js';

/** Options of {@link SmtpPool}. */
export interface SmtpPoolOptions extends SmtpConnectionOptions {
  /** Connections open at once (default 10). */
  maxConnections?: number;
}

interface Task {
  envelope: SmtpEnvelope;
  message: MessageBytes;
  resolve: (transaction: SmtpTransaction) => void;
  reject: (error: unknown) => void;
  /** Already sent again once after a reused connection turned out to be dead. */
  retried?: boolean;
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

  constructor(private readonly options: SmtpPoolOptions) {}

  /**
   * Sends `message` in one transaction on a pooled connection. Resolves with what the server
   * replied (refusals included); rejects with an {@link SmtpError} when no reply decided it.
   */
  send(envelope: SmtpEnvelope, message: MessageBytes): Promise<SmtpTransaction> {
    if (this.closed) return Promise.reject(new SmtpError('ECONNECTION', 'the connection pool is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ envelope, message, resolve, reject });
      this.pump();
    });
  }

  /** Closes idle connections now and busy ones when their transaction ends; queued messages fail. */
  close(): void {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new SmtpError('ECONNECTION', 'the connection pool was closed'));
    for (const connection of this.idle.splice(0)) void connection.quit();
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      const connection = this.idle.pop();
      if (connection) {
        if (connection.usable) void this.run(connection, this.queue.shift()!);
      } else if (this.open < (this.options.maxConnections ?? 10)) {
        void this.connect(this.queue.shift()!);
      } else {
        return;
      }
    }
  }

  private async connect(task: Task): Promise<void> {
    const connection = new SmtpConnection(this.options);
    let opened = false;
    this.open += 1;
    connection.onClose(() => {
      this.open -= 1;
      if (!opened) return; // a failed opening is handled below, before anything else is started
      this.established -= 1;
      const at = this.idle.indexOf(connection);
      if (at !== -1) this.idle.splice(at, 1);
      this.pump();
    });
    try {
      await connection.open();
    } catch (error) {
      connection.close();
      task.reject(error);
      // With no working connection to this server, what waits would meet the same failure one by
      // one, each after its own timeout: it fails now. With one working, the failure may be a
      // passing limit (too many connections), and the messages wait for the working ones.
      if (this.established === 0) for (const waiting of this.queue.splice(0)) waiting.reject(error);
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
      if (this.closed) void connection.quit();
      else if (connection.usable) this.idle.push(connection);
      this.pump();
    };
    try {
      task.resolve(await connection.send(task.envelope, task.message, connection.pipelining ? release : undefined));
    } catch (error) {
      // A reused connection the server closed while it was idle fails before any reply: that is
      // not the message's fault, and nothing reached the server, so it goes once more on a fresh one.
      if (reused && !task.retried && error instanceof SmtpError && error.beforeTransaction) {
        this.queue.unshift({ ...task, retried: true });
      } else {
        task.reject(error);
      }
    }
    release();
  }
}
