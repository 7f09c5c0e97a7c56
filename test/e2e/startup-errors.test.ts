/**
 * The example servers, run as `npm start` runs them (their own processes), on a misconfigured
 * machine: each refuses to start with exit status 1 and one line on stderr per thing that is wrong,
 * never a stack trace and never a server that claims to listen when it does not. And once started,
 * they answer the health endpoints.
 *
 * A process costs about 3 s, so the table of bad configurations (test/support/bad-configurations.ts)
 * runs through the real process merged into one environment (every variable wrong at once) and
 * a handful of its entries one by one; test/unit/example-config.test.ts runs each entry in-process.
 */
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { badConfigurations, mergedBadConfiguration, type BadConfiguration } from '../support/bad-configurations.js';
import { runExampleUntilExit, startExample, type ExampleExit } from '../support/example-server.js';
import { closedPort } from '../support/tcp-proxy.js';

/** The one line on stderr, checked to be the only one. */
function onlyLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  return lines[0]!;
}

const scratch = mkdtempSync(join(tmpdir(), 'mailplane-startup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const cases = badConfigurations(scratch);

/** Checks a refused start: status 1, nothing on stdout (no key, no "listening"), and only error lines on stderr. */
function expectRefusedBeforeAnyOutput(exit: ExampleExit): string[] {
  expect(exit.code).toBe(1);
  expect(exit.stdout).toBe('');
  expect(exit.stderr).not.toMatch(/account API key|listening|SANDBOX mode|LIVE mode/);
  const lines = exit.stderr.trim().split('\n');
  for (const line of lines) expect(line).toMatch(/^mailplane: cannot start: [A-Z_]+=\S.*: .+; accepted: .+$/);
  return lines;
}

/** The table's entry that sets exactly `env`. */
const entry = (env: Record<string, string>): BadConfiguration =>
  cases.find(
    (candidate) =>
      JSON.stringify(Object.keys(candidate.env)) === JSON.stringify(Object.keys(env)) &&
      Object.entries(env).every(([name, value]) => candidate.env[name] === value),
  )!;

describe('the example servers refuse a bad configuration before printing anything', () => {
  it('naming every bad variable of the table at once, one line each (express)', async () => {
    const { env, variables } = mergedBadConfiguration(cases);
    const lines = expectRefusedBeforeAnyOutput(await runExampleUntilExit('express', env));
    expect(lines.map((line) => /^mailplane: cannot start: ([A-Z_]+)=/.exec(line)?.[1])).toEqual(variables);
    expect(lines.join('\n')).not.toContain('hunter2');
  });

  const oneByOne: [framework: 'express' | 'koa', bad: BadConfiguration][] = [
    ['express', entry({ PORT: 'abc' })],
    ['koa', entry({ MAILPLANE_RETRY_DELAYS_MS: '10m,soon' })],
    ['express', cases.find((candidate) => candidate.reason === 'set without MAILPLANE_SMTP_TLS_CERT')!],
    ['koa', cases.find((candidate) => candidate.reason === 'not the certificate of MAILPLANE_SMTP_TLS_KEY')!],
    ['express', entry({ MAILPLANE_SECRET: 'only-twenty-chars-ok' })],
    ['koa', entry({ MAILPLANE_LOG_LEVEL: 'verbose' })],
  ];
  it.each(oneByOne.map(([name, bad]) => [name, bad.variable, bad.reason, bad] as const))(
    '%s: %s (%s)',
    async (name, _variable, _reason, bad) => {
      const [line, ...more] = expectRefusedBeforeAnyOutput(await runExampleUntilExit(name, bad.env));
      expect(more).toEqual([]);
      expect(line).toContain(`mailplane: cannot start: ${bad.variable}=`);
      expect(line).toContain(`: ${bad.reason}; accepted: `);
    },
  );
});

describe.each(['express', 'koa'] as const)('the %s example refuses to start', (name) => {
  it('when its HTTP port is in use', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const exit = await runExampleUntilExit(name, { PORT: String(port) });
      expect(exit.code).toBe(1);
      expect(onlyLine(exit.stderr)).toMatch(
        new RegExp(
          `^mailplane: cannot start: cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use \\(set PORT to a free one, or stop the other server\\)`,
        ),
      );
      expect(exit.stdout).not.toMatch(/listening on http/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('when the PostgreSQL server cannot be reached, without printing the URL', async () => {
    const port = await closedPort();
    const exit = await runExampleUntilExit(name, {
      MAILPLANE_DATABASE_URL: `postgres://postgres:hunter2@127.0.0.1:${port}/mailplane`,
    });
    expect(exit.code).toBe(1);
    const line = onlyLine(exit.stderr);
    expect(line).toBe(
      `mailplane: cannot start: MAILPLANE_DATABASE_URL: the PostgreSQL database cannot be reached: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    expect(line).not.toContain('hunter2');
  });
});

describe.each(['express', 'koa'] as const)('the %s example health endpoints', (name) => {
  it('answers /healthz and /readyz', async () => {
    const server = await startExample(name);
    try {
      const origin = new URL(server.baseUrl).origin;
      const health = await fetch(`${origin}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${origin}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', checks: { store: 'ok', secret: 'ok', jobRunner: 'ok' } });
    } finally {
      await server.stop();
    }
  });
});
