/**
 * The `mailplane` command line without a server: every command's --help, usage errors (exit 2),
 * `config` with its secrets masked, and a bad variable stopping a command (exit 1) before it
 * prints anything else. Each case runs the real binary (cli/main.ts, bundled once per run).
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

/** Node flags that make the packages named in MAILPLANE_TEST_HIDE_PACKAGES unresolvable (test/support/hide-packages.mjs). */
const HIDE_PACKAGES = {
  nodeArgs: ['--import', fileURLToPath(new URL('../support/hide-packages.mjs', import.meta.url))],
};

const COMMANDS = ['start', 'migrate', 'account-key', 'domain', 'send', 'tail', 'config'];

describe('mailplane --help', () => {
  it('lists every command, and each command explains itself with exit status 0', async () => {
    const [overview, ...helps] = await Promise.all([
      runCli(['--help']),
      ...COMMANDS.map((name) => runCli([name, '--help'])),
    ]);
    expect(overview.code).toBe(0);
    for (const name of COMMANDS) expect(overview.stdout).toContain(`  ${name} `);
    helps.forEach((help, index) => {
      expect(help.code, COMMANDS[index]).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: mailplane ${COMMANDS[index]}`));
      expect(help.stdout).toContain('Exit status:');
      expect(help.stderr).toBe('');
    });
  }, 120_000);
});

describe('without the library', () => {
  it('--help and a usage error answer without loading it (its dependencies may be missing)', async () => {
    // The library's dependencies fail to resolve: any command that loaded the library would fail.
    const env = { MAILPLANE_TEST_HIDE_PACKAGES: 'zod,kysely,pino,handlebars,mailparser' };
    const [overview, unknownCommand] = await Promise.all([
      runCli(['--help'], env, HIDE_PACKAGES),
      runCli(['deploy'], env, HIDE_PACKAGES),
    ]);
    expect(overview).toMatchObject({ code: 0, stderr: '' });
    expect(overview.stdout).toMatch(/^Usage: mailplane COMMAND/);
    expect(unknownCommand).toMatchObject({ code: 2, stdout: '' });
    expect(unknownCommand.stderr).toMatch(/^mailplane: unknown command "deploy"/);
    // The same hook does stop a command that needs the library.
    expect((await runCli(['config'], env, HIDE_PACKAGES)).code).not.toBe(0);
  }, 120_000);

  it('loads and runs it without mailauth and mailparser, which only mail it receives needs', async () => {
    // They took about half a CPU-second to load, which every process paid at start: now they are
    // imported on first use (inbound authentication, a received message's MIME, a forward's ARC seal).
    const dataDir = mkdtempSync(join(tmpdir(), 'mailplane-lazy-'));
    try {
      const env = {
        MAILPLANE_TEST_HIDE_PACKAGES: 'mailauth,mailauth/lib/dkim/verify.js,mailparser',
        MAILPLANE_DATA_DIR: dataDir,
        MAILPLANE_SECRET: 'a-very-long-instance-secret-0123456789',
      };
      const migrated = await runCli(['migrate'], env, HIDE_PACKAGES);
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(migrated.stdout).toMatch(/is at the latest schema/);
      // account-key builds an instance (createMailplane) on that database: none has an account yet.
      const key = await runCli(['account-key'], env, HIDE_PACKAGES);
      expect(key, key.stderr).toMatchObject({ code: 1 });
      expect(key.stdout).toContain('no account yet');
      expect(key.stderr).not.toContain('Cannot find package');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('usage errors', () => {
  it('exit 2 with the problem and where the usage is: unknown command, unknown flag, missing argument', async () => {
    const [unknownCommand, unknownFlag, missingName, missingTo, noCommand] = await Promise.all([
      runCli(['deploy']),
      runCli(['tail', '--follow-forever']),
      runCli(['domain', 'check']),
      runCli(['send', '--from', 'hello@acme.test']),
      runCli([]),
    ]);
    expect(unknownCommand).toMatchObject({ code: 2, stdout: '' });
    expect(unknownCommand.stderr).toContain('unknown command "deploy"');
    expect(unknownFlag).toMatchObject({ code: 2, stdout: '' });
    expect(unknownFlag.stderr).toContain("Unknown option '--follow-forever'");
    expect(unknownFlag.stderr).toContain('mailplane tail --help');
    expect(missingName.code).toBe(2);
    expect(missingName.stderr).toContain('domain: missing');
    expect(missingTo.code).toBe(2);
    expect(missingTo.stderr).toContain('--from and --to are required');
    expect(noCommand.code).toBe(2);
    expect(noCommand.stderr).toContain('Usage: mailplane COMMAND');
  }, 120_000);
});

describe('mailplane config', () => {
  const secrets = {
    MAILPLANE_SECRET: 'a-very-long-instance-secret-0123456789',
    MAILPLANE_ACCOUNT_API_KEY: 'mpak_configuredAccountKey123',
    MAILPLANE_METRICS_TOKEN: 'metrics-token-0123456789',
    MAILPLANE_DATABASE_URL: 'postgres://mailplane:db-password-42@db.internal:5432/mailplane',
  };

  it('prints every variable as resolved, with where it comes from, and never a secret', async () => {
    const result = await runCli(['config'], { ...secrets, PORT: '8080', MAILPLANE_RETRY_DELAYS_MS: '60000,2h' });
    expect(result.code).toBe(0);
    for (const value of ['a-very-long-instance-secret', 'configuredAccountKey', 'metrics-token', 'db-password-42'])
      expect(result.stdout + result.stderr).not.toContain(value);
    expect(result.stdout).toMatch(/^PORT +8080 +\(environment\)$/m);
    expect(result.stdout).toMatch(/^HOST +127\.0\.0\.1 +\(default\)$/m);
    expect(result.stdout).toMatch(/^MAILPLANE_SECRET +\(hidden\) +\(environment\)$/m);
    expect(result.stdout).toContain('postgres://mailplane:***@db.internal:5432/mailplane');
    // Durations as the schema reads them back, whatever the spelling given.
    expect(result.stdout).toMatch(/^MAILPLANE_RETRY_DELAYS_MS +1m,2h +\(environment\)$/m);
  }, 120_000);

  it('--json: one object keyed by variable, secrets masked', async () => {
    const result = await runCli(['config', '--json'], secrets);
    expect(result.code).toBe(0);
    const config = JSON.parse(result.stdout) as Record<string, { value: string | null; source: string }>;
    expect(config.PORT).toEqual({ value: '3000', source: 'default' });
    expect(config.MAILPLANE_ACCOUNT_API_KEY).toEqual({ value: '(hidden)', source: 'environment' });
    expect(config.MAILPLANE_METRICS_TOKEN).toEqual({ value: '(hidden)', source: 'environment' });
    expect(config.MAILPLANE_SMTP_PORT).toMatchObject({ value: null, source: 'unset' });
    expect(result.stdout).not.toContain('db-password-42');
  }, 120_000);
});

describe('a bad variable', () => {
  it('stops config, start and migrate with exit 1, naming the variable, before anything else is printed', async () => {
    const env = { PORT: 'abc', MAILPLANE_DATABASE_URL: 'mysql://nope', MAILPLANE_SANDBOX: 'maybe' };
    const results = await Promise.all([runCli(['config'], env), runCli(['start'], env), runCli(['migrate'], env)]);
    const [config, start, migrate] = results;
    for (const result of results) {
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('MAILPLANE_DATABASE_URL="mysql://nope": ');
    }
    expect(config.stderr).toContain('PORT="abc": not a whole number; accepted: a port number from 0 to 65535');
    expect(config.stderr).toContain('MAILPLANE_SANDBOX="maybe"');
    // start reports every bad variable, in the example servers' own words.
    expect(start.stderr).toContain('mailplane: cannot start: PORT="abc"');
    // migrate reads the database URL alone: the other variables are not its business.
    expect(migrate.stderr).not.toContain('PORT');
  }, 120_000);

  it('a client command says when the server cannot be reached (exit 1)', async () => {
    // A port that was free a moment ago: nothing listens there.
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    server.close();
    const url = `http://127.0.0.1:${port}`;
    const result = await runCli(['tail', '--once', '--url', url, '--key', 'mpak_whatever0000000']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot reach ${url} (ECONNREFUSED): is the server running?`);
  }, 120_000);

  it('start --express or --koa without the package installed: one line saying how to install it (exit 1)', async () => {
    // Resolution of the framework fails exactly as on a machine where it is not installed.
    const env = { MAILPLANE_TEST_HIDE_PACKAGES: 'express,koa', PORT: '0' };
    const results = await Promise.all(
      ['express', 'koa'].map((name) => runCli(['start', `--${name}`], env, HIDE_PACKAGES)),
    );
    results.forEach((result, index) => {
      const name = ['express', 'koa'][index]!;
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toBe(
        `mailplane: cannot start: ${name} is not installed: run \`npm install ${name}\`, or start without a framework\n`,
      );
    });
  }, 120_000);
});
