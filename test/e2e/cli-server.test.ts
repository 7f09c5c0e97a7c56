/**
 * The `mailplane` command line against a real server it started itself, on SQLite and PostgreSQL:
 * `migrate`, `start`, `account-key` (shown, then rotated: the old key refused, the new one
 * accepted), `domain check` of a missing and a sandbox-verified domain, `send` of a test email that
 * arrives in the sandbox, and `tail` printing (and following) its events. Every command is the real
 * binary (cli/main.ts, bundled once per run) in a process of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl, storeKinds } from '../support/databases.js';
import { startExample, type ExampleServer } from '../support/example-server.js';
import { runCli, spawnCli } from '../support/cli.js';

describe.each(storeKinds)('mailplane CLI against its own server on %s', (kind) => {
  let server: ExampleServer;
  let drop: () => Promise<void>;
  let dataDir: string;
  /** The server's environment: the CLI's commands read the same. */
  let env: Record<string, string>;
  /** The environment of a client command: the server's URL and the current account key. */
  const client = () => ({ ...env, MAILPLANE_ACCOUNT_API_KEY: server.accountKey });
  const args = (...rest: string[]) => [...rest, '--url', server.baseUrl];

  beforeAll(async () => {
    const database = await freshDatabaseUrl(kind);
    drop = database.drop;
    dataDir = mkdtempSync(join(tmpdir(), 'mailplane-cli-'));
    env = {
      MAILPLANE_DATABASE_URL: database.url,
      MAILPLANE_DATA_DIR: dataDir,
      MAILPLANE_SANDBOX: '1',
      MAILPLANE_LOG_LEVEL: 'warn',
    };
  });

  afterAll(async () => {
    await server?.stop();
    await drop?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('migrate brings a new database to the latest schema, and again is harmless; no account yet', async () => {
    const first = await runCli(['migrate'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/is at the latest schema \(last migration: \d{4}-/);
    expect((await runCli(['migrate'], env)).code).toBe(0);
    const none = await runCli(['account-key'], env);
    expect(none).toMatchObject({ code: 1 });
    expect(none.stdout).toContain('no account yet');
  }, 120_000);

  it('start serves the API, prints the key once; account-key says one is set without printing it', async () => {
    server = await startExample('express', { ...env, PORT: '0' }, { cli: ['start'] });
    expect(server.output()).toContain('mailplane (node) listening on');
    expect(server.accountKey).toMatch(/^mpak_/);
    expect((await fetch(`${new URL(server.baseUrl).origin}/readyz`)).status).toBe(200);
    const shown = await runCli(['account-key'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('an account key is set');
    expect(shown.stdout).not.toContain(server.accountKey);
  }, 120_000);

  it('domain check: a domain no sub-account has is exit 1; added in sandbox mode it is verified, record by record', async () => {
    const missing = await runCli(args('domain', 'check', 'acme.test'), client());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('acme.test: no such domain');

    const added = await runCli(args('domain', 'check', 'acme.test', '--add'), client());
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^acme\.test \(domain \d+ of sub-account \d+ "Default"\): verified$/m);
    expect(added.stdout).toMatch(/^ {2}dkim +TXT +mp1\._domainkey\.acme\.test +found$/m);
    expect(added.stdout).toMatch(/^ {2}dmarc +TXT +_dmarc\.acme\.test +found$/m);

    // Asked again, the domain is found in its sub-account (no second add), and --json is the API's resource.
    const again = await runCli(args('domain', 'check', 'ACME.test', '--json'), client());
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ name: 'acme.test', verified: true, dkimVerified: true });
  }, 120_000);

  it('send: a test email delivered to the sandbox; tail --json shows its events', async () => {
    const sent = await runCli(
      args('send', '--from', 'hello@acme.test', '--to', 'ada@example.com', '--subject', 'CLI test', '--wait'),
      client(),
    );
    expect(sent.code, sent.stderr).toBe(0);
    const messageId = /ada@example\.com: accepted, message (\S+)/.exec(sent.stdout)?.[1];
    expect(messageId).toBeDefined();
    expect(sent.stdout).toContain('ada@example.com: delivered');

    const inbox = (await (
      await fetch(`${server.baseUrl}/account/sandbox/message`, { headers: { 'X-Account-ApiKey': server.accountKey } })
    ).json()) as { messageId: string; subject: string; rcptTo: string[] }[];
    expect(inbox).toContainEqual(expect.objectContaining({ messageId, subject: 'CLI test' }));

    const tail = await runCli(args('tail', '--json', '--once'), client());
    expect(tail.code, tail.stderr).toBe(0);
    const events = tail.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: number; messageID: string; submittedAt: number });
    const ofMessage = events.filter((event) => event.messageID === messageId);
    // Processed then Delivered, oldest first.
    expect(ofMessage.map((event) => event.type)).toEqual([0, 2]);
    // The nanosecond time as the API wrote it (19 digits, no rounding to a double's 2^53).
    expect(tail.stdout).toMatch(/"submittedAt":\d{19}[,}]/);
  }, 120_000);

  it('tail follows: started before a send, it prints the new events and stops at --limit', async () => {
    const follower = spawnCli(args('tail', '--lines', '0', '--limit', '2', '--interval', '200'), client());
    // The first poll marks where following starts; the process says on stderr once it has made it.
    const following = new Promise<void>((resolve) => {
      let said = '';
      follower.child.stderr!.on('data', (chunk) => {
        said += chunk;
        if (said.includes('following new events')) resolve();
      });
    });
    const early = await Promise.race([following, follower.exited]);
    expect(early, 'tail ended before following').toBeUndefined();
    const sent = await runCli(
      args('send', '--from', 'hello@acme.test', '--to', 'grace@example.com', '--subject', 'followed'),
      client(),
    );
    expect(sent.code, sent.stderr).toBe(0);
    const { code, stdout } = await follower.exited;
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/ Processed +grace@example\.com from hello@acme\.test "followed" message /);
    expect(lines[1]).toMatch(/ Delivered +grace@example\.com .*\[250 /);
  }, 120_000);

  it('account-key --rotate: the new key is printed once; the API refuses the old one and accepts the new one', async () => {
    const oldKey = server.accountKey;
    const rotated = await runCli(['account-key', '--rotate'], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    const newKey = /new account API key \(shown once, keep it\): (\S+)/.exec(rotated.stdout)?.[1];
    expect(newKey).toMatch(/^mpak_/);
    expect(newKey).not.toBe(oldKey);
    const list = (key: string) =>
      fetch(`${server.baseUrl}/account/subaccount`, { headers: { 'X-Account-ApiKey': key } });
    expect((await list(oldKey)).status).toBe(401);
    expect((await list(newKey!)).status).toBe(200);
    // The CLI's own client commands take the new key too, and refuse the old one with the API's words.
    const refused = await runCli(args('tail', '--once'), { ...env, MAILPLANE_ACCOUNT_API_KEY: oldKey });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('401 INVALID_API_KEY');
    expect((await runCli(args('tail', '--once'), { ...env, MAILPLANE_ACCOUNT_API_KEY: newKey! })).code).toBe(0);
  }, 120_000);

  it('account-key --rotate with another secret than the database was set up with changes nothing (exit 1)', async () => {
    const wrong = await runCli(['account-key', '--rotate'], { ...env, MAILPLANE_SECRET: 'x'.repeat(40) });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('another secret');
    expect(wrong.stdout).not.toContain('mpak_');
  }, 120_000);
});

describe('mailplane start --koa and --express', () => {
  it.each(['koa', 'express'])(
    'serve the same API on %s',
    async (framework) => {
      const server = await startExample('express', { MAILPLANE_SANDBOX: '1' }, { cli: ['start', `--${framework}`] });
      try {
        expect(server.output()).toContain(`mailplane (${framework}) listening on`);
        const answer = await fetch(`${server.baseUrl}/account/subaccount`, {
          headers: { 'X-Account-ApiKey': server.accountKey },
        });
        expect(answer.status).toBe(200);
        expect((await fetch(`${new URL(server.baseUrl).origin}/healthz`)).status).toBe(200);
      } finally {
        await server.stop();
      }
    },
    120_000,
  );
});
