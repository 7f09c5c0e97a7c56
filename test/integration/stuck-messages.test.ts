/**
 * No message stuck without a word (issue 27, item 3): when the job that was to send or release a
 * message fails for good, the message ends `dropped` with reason `JOB_FAILED`, a Dropped event,
 * a webhook post and an error log line; and when even that cannot be written (the store is down),
 * the job is kept and gives up again once the store is back. The faults are real ones of the
 * database: triggers that make its writes fail, as a full disk or a bad value (`NOT NULL
 * constraint failed: jobs.run_at`, the example) makes them fail.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from 'mailplane';
import { storeKinds, type StoreKind } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, T0, type DeliveryEnv } from '../support/delivery-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const HOUR = 3_600_000;
const FAULT = 'injected fault: the disk refused the write';

/** One log entry as a logger received it. */
interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields: Record<string, unknown>;
}

/** A logger that keeps every line. */
function recordingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const entry =
    (level: LogLine['level']) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      void lines.push({ level, message, fields });
  return { lines, info: entry('info'), warn: entry('warn'), error: entry('error') };
}

/** Write faults of a real database, injected and healed from a connection of its own. */
interface StoreFaults {
  /** Inserting a job of `jobKind` fails. */
  failJobInserts(jobKind: string): Promise<void>;
  /** Moving a message to `dropped` fails. */
  failDrops(): Promise<void>;
  /** The jobs of `jobKind` as stored (state and last error). */
  jobs(jobKind: string): Promise<Array<{ state: string; lastError: string | null }>>;
  /** Removes every fault. */
  heal(): Promise<void>;
  close(): Promise<void>;
}

async function storeFaults(kind: StoreKind, url: string): Promise<StoreFaults> {
  if (kind === 'sqlite') {
    const db = new Database(url.slice('sqlite:'.length));
    const triggers: string[] = [];
    return {
      async failJobInserts(jobKind) {
        const name = `fault_jobs_${triggers.length}`;
        db.exec(`CREATE TRIGGER ${name} BEFORE INSERT ON jobs WHEN NEW.kind = '${jobKind}'
                 BEGIN SELECT RAISE(ABORT, '${FAULT}'); END`);
        triggers.push(name);
      },
      async failDrops() {
        const name = `fault_drops_${triggers.length}`;
        db.exec(`CREATE TRIGGER ${name} BEFORE UPDATE ON messages WHEN NEW.status = 'dropped'
                 BEGIN SELECT RAISE(ABORT, '${FAULT}'); END`);
        triggers.push(name);
      },
      async jobs(jobKind) {
        const rows = db.prepare('SELECT state, last_error FROM jobs WHERE kind = ?').all(jobKind) as Array<{
          state: string;
          last_error: string | null;
        }>;
        return rows.map((r) => ({ state: r.state, lastError: r.last_error }));
      },
      async heal() {
        for (const name of triggers.splice(0)) db.exec(`DROP TRIGGER ${name}`);
      },
      async close() {
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // SQLSTATE 58030: an I/O error of the server's disk.
  await client.query(`CREATE FUNCTION mailplane_test_fault() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION '${FAULT}' USING ERRCODE = '58030'; END $$`);
  const triggers: Array<[string, string]> = [];
  return {
    async failJobInserts(jobKind) {
      const name = `fault_jobs_${triggers.length}`;
      await client.query(`CREATE TRIGGER ${name} BEFORE INSERT ON jobs FOR EACH ROW
        WHEN (NEW.kind = '${jobKind}') EXECUTE FUNCTION mailplane_test_fault()`);
      triggers.push([name, 'jobs']);
    },
    async failDrops() {
      const name = `fault_drops_${triggers.length}`;
      await client.query(`CREATE TRIGGER ${name} BEFORE UPDATE ON messages FOR EACH ROW
        WHEN (NEW.status = 'dropped') EXECUTE FUNCTION mailplane_test_fault()`);
      triggers.push([name, 'messages']);
    },
    async jobs(jobKind) {
      const { rows } = await client.query<{ state: string; last_error: string | null }>(
        'SELECT state, last_error FROM jobs WHERE kind = $1',
        [jobKind],
      );
      return rows.map((r) => ({ state: r.state, lastError: r.last_error }));
    },
    async heal() {
      for (const [name, table] of triggers.splice(0)) await client.query(`DROP TRIGGER ${name} ON ${table}`);
    },
    async close() {
      await client.end();
    },
  };
}

describe.each(storeKinds)('a message whose job fails for good (%s)', (kind) => {
  let env: DeliveryEnv | undefined;
  let receiver: WebhookReceiver | undefined;
  let faults: StoreFaults | undefined;
  let logger: ReturnType<typeof recordingLogger>;
  afterEach(async () => {
    await faults?.heal();
    await faults?.close();
    await env?.close();
    await receiver?.close();
    env = receiver = faults = undefined;
  });

  /** A delivery bench with 3 attempts per job, a webhook for Dropped events, and faults at hand. */
  async function start(): Promise<{ env: DeliveryEnv; receiver: WebhookReceiver; faults: StoreFaults }> {
    logger = recordingLogger();
    receiver = await startWebhookReceiver();
    env = await startDeliveryEnv(kind, {}, { logger, webhooks: { allowPrivateTargets: true }, maxAttempts: 3 });
    const created = await env.api.call('POST', '/account/webhook', {
      account: env.api.accountKey,
      body: { url: receiver.url, dropped: true },
    });
    expect(created.status).toBe(200);
    faults = await storeFaults(kind, env.api.url);
    return { env, receiver, faults };
  }

  /** Moves the clock an hour at a time (past every backoff) until the message has `status`. */
  async function advanceUntil(messageId: string, status: string) {
    let view: Awaited<ReturnType<DeliveryEnv['message']>>;
    await vi.waitFor(
      async () => {
        env!.advance(HOUR);
        view = await env!.message(messageId);
        expect(view.status).toBe(status);
      },
      { timeout: 20_000, interval: 50 },
    );
    return view;
  }

  /**
   * The job ends dead with `lastError`. The runner marks it so after its give-up has dropped the
   * message, so a loaded machine can show the message dropped while the job is still settling.
   */
  async function expectJobEnded(faults: StoreFaults, jobKind: string, lastError: unknown) {
    await vi.waitFor(async () => expect(await faults.jobs(jobKind)).toEqual([{ state: 'dead', lastError }]), {
      timeout: 10_000,
      interval: 20,
    });
  }

  /** What a user sees of a message dropped because its `jobKind` job failed: API, webhook, log. */
  async function expectDroppedByJob(
    messageId: string,
    jobKind: string,
    view: Awaited<ReturnType<DeliveryEnv['message']>>,
  ) {
    expect(view.status).toBe('dropped');
    const last = view.events.at(-1);
    expect(last.type).toBe(1); // Dropped
    expect(last.eventMetadata).toMatchObject({ reason: 'JOB_FAILED', jobKind });
    expect(last.eventMetadata.description).toMatch(new RegExp(`the ${jobKind} job .* failed for good`));
    expect(last.eventMetadata.description).toContain(FAULT);

    await vi.waitFor(
      () => {
        // A post that failed on a loaded machine is retried on the test's clock: move it on.
        env!.advance(HOUR);
        const posted = receiver!.received.find((d) => d.json?.event?.messageID === messageId);
        expect(posted?.json.event).toMatchObject({ type: 1, eventMetadata: { reason: 'JOB_FAILED', jobKind } });
      },
      { timeout: 10_000, interval: 20 },
    );

    const line = logger.lines.find((l) => l.level === 'error' && l.fields.messageId === messageId);
    expect(line?.fields).toMatchObject({ jobKind, reason: expect.stringContaining(FAULT) });
  }

  it('a soft bounce whose retry cannot be written ends dropped with JOB_FAILED, an event, a webhook and a log line', async () => {
    const { env, faults } = await start();
    // The case: the deferral's retry job cannot be stored, so the outcome rolls back.
    await faults.failJobInserts('deliver-message');
    env.sink.behave({ rcpt: ['451 4.3.0 Try again later'] });
    const [entry] = await env.send([`ada@${RCPT_DOMAIN}`]);
    const view = await advanceUntil(entry!.messageId, 'dropped');
    await expectDroppedByJob(entry!.messageId, 'deliver-page', view);
    expect(view.events.map((e: { type: number }) => e.type)).toEqual([0, 1]); // Processed, Dropped
    await expectJobEnded(faults, 'deliver-page', expect.stringContaining(FAULT));
  });

  it('a retry whose own deferral cannot be written drops the deferred message', async () => {
    const { env, faults } = await start();
    env.sink.behave({ rcpt: ['451 4.3.0 Try again later'] });
    const [entry] = await env.send([`bea@${RCPT_DOMAIN}`]);
    await env.waitForStatus(entry!.messageId, 'deferred');
    await faults.failJobInserts('deliver-message');
    const view = await advanceUntil(entry!.messageId, 'dropped');
    await expectDroppedByJob(entry!.messageId, 'deliver-message', view);
    expect(view.events.map((e: { type: number }) => e.type)).toEqual([0, 3, 1]); // Processed, SoftBounced, Dropped
  });

  it('a scheduled send whose release cannot be written is dropped rather than left scheduled', async () => {
    const { env, faults } = await start();
    await faults.failJobInserts('deliver-batch');
    const sendAt = (BigInt(T0 + HOUR) * 1_000_000n).toString();
    const [entry] = await env.send([`cy@${RCPT_DOMAIN}`], { sendAt });
    expect((await env.message(entry!.messageId)).status).toBe('scheduled');
    const view = await advanceUntil(entry!.messageId, 'dropped');
    await expectDroppedByJob(entry!.messageId, 'deliver-scheduled', view);
  });

  it('with the store down when the job gives up, the job is kept and the message is dropped once it is back', async () => {
    const { env, faults } = await start();
    await faults.failJobInserts('deliver-message');
    await faults.failDrops();
    env.sink.behave({ rcpt: ['451 4.3.0 Try again later'] });
    const [entry] = await env.send([`dee@${RCPT_DOMAIN}`]);

    // The job has given up, and could not record it: it is kept, pending, to give up again.
    await vi.waitFor(
      async () => {
        env.advance(HOUR);
        expect(await faults.jobs('deliver-page')).toEqual([
          { state: 'pending', lastError: expect.stringMatching(/^giving up: .*injected fault/) },
        ]);
      },
      { timeout: 20_000, interval: 50 },
    );
    expect((await env.message(entry!.messageId)).status).toBe('queued');
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ level: 'error', message: 'job could not give up; kept to give up again' }),
    );
    const attemptsFailed = () => logger.lines.filter((l) => l.message === 'job attempt failed; will retry').length;
    const failedBefore = attemptsFailed();

    await faults.heal();
    const view = await advanceUntil(entry!.messageId, 'dropped');
    await expectDroppedByJob(entry!.messageId, 'deliver-page', view);
    await expectJobEnded(faults, 'deliver-page', expect.any(String));
    // Giving up again does not run the job's handler again.
    expect(attemptsFailed()).toBe(failedBefore);
  });
});
