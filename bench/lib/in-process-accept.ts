/**
 * A mailplane instance on a fresh SQLite file that accepts sends in this process, through
 * `mailplane.handle` (no HTTP server, no rate limiter, no access log): the accept path alone. For
 * bench/accept-indexes.ts and bench/accept-statements.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMailplane, type HttpRequest } from '../../src/index.js';
import { openKyselyStore } from '../../adapters/storage/kysely/index.js';
import { sendBody } from '../send.js';

const silent = { info: () => {}, warn: () => {}, error: () => {} };

/** A ready instance: a sub-account with a verified sending domain, and a way to send to it. */
export interface InProcessAccept {
  /** The SQLite file's path. */
  file: string;
  /** Runs sends of `recipients` each, numbered from the last one sent, `concurrency` at a time, until `until` have been sent in all. */
  sendUntil(until: number): Promise<void>;
  /** Sends made so far. */
  readonly sent: number;
  close(): Promise<void>;
}

/**
 * Opens the instance. `beforeSending` runs once the sub-account and domain exist, before the first
 * send (e.g. to drop indexes from the file).
 */
export async function openInProcessAccept(
  recipients: number,
  concurrency: number,
  beforeSending: (file: string) => void = () => {},
): Promise<InProcessAccept> {
  const dir = mkdtempSync(join(tmpdir(), 'mailplane-accept-'));
  const file = join(dir, 'mailplane.db');
  const store = await openKyselyStore({ url: `sqlite:${file}` });
  const mailplane = createMailplane({
    store,
    secret: 'bench-in-process-accept-secret-0123456789',
    logger: silent,
    rateLimits: false,
  });
  const call = async (path: string, headers: Record<string, string>, body: unknown) => {
    const rawBody = typeof body === 'string' ? body : JSON.stringify(body);
    const request: HttpRequest = {
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', ...headers },
      query: new URLSearchParams(),
      rawBody,
    };
    const response = await mailplane.handle(request);
    if (response.status !== 200 && response.status !== 201)
      throw new Error(`${path}: ${response.status} ${response.body}`);
    return JSON.parse(response.body) as { id: number; apiKey: string };
  };
  const { apiKey } = await mailplane.createAccount({ name: 'bench' });
  const sub = await call('/account/subaccount', { 'x-account-apikey': apiKey }, { name: 'bench' });
  const domain = await call('/subaccount/domain', { 'x-subaccount-apikey': sub.apiKey }, { name: 'bench.example.com' });
  // Stands in for publishing DNS, as bench/send.ts does.
  await store.domains.updateVerification(sub.id, domain.id, { dkimVerified: true, verified: true, updated: 1n });
  beforeSending(file);
  const body = sendBody(recipients);
  let next = 0;
  return {
    file,
    get sent() {
      return next;
    },
    sendUntil: async (until) => {
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < until) await call('/subaccount/email', { 'x-subaccount-apikey': sub.apiKey }, body(next++));
        }),
      );
    },
    close: async () => {
      await mailplane.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
