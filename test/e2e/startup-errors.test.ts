/**
 * The example servers, run as `npm start` runs them (their own processes), on a misconfigured
 * machine: each refuses to start with exit status 1 and one line on stderr that says what is wrong,
 * never a stack trace and never a server that claims to listen when it does not. And once started,
 * they answer the health endpoints.
 */
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runExampleUntilExit, startExample } from '../support/example-server.js';
import { closedPort } from '../support/tcp-proxy.js';

/** The one line on stderr, checked to be the only one. */
function onlyLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  return lines[0]!;
}

const scratch = mkdtempSync(join(tmpdir(), 'mailplane-startup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.each(['express', 'koa'] as const)('the %s example refuses to start', (name) => {
  it('when its HTTP port is in use', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const exit = await runExampleUntilExit(name, { PORT: String(port) });
      expect(exit.code).toBe(1);
      expect(onlyLine(exit.stderr)).toMatch(new RegExp(`^mailplane: cannot start: cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use \\(set PORT to a free one, or stop the other server\\)`));
      expect(exit.stdout).not.toMatch(/listening on http/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('when MAILPLANE_DATABASE_URL cannot be used', async () => {
    const exit = await runExampleUntilExit(name, { MAILPLANE_DATABASE_URL: 'mysql://127.0.0.1/mailplane' });
    expect(exit.code).toBe(1);
    expect(onlyLine(exit.stderr)).toBe('mailplane: cannot start: MAILPLANE_DATABASE_URL: the database URL must start with sqlite: or postgres://');
  });

  it('when the PostgreSQL server cannot be reached, without printing the URL', async () => {
    const port = await closedPort();
    const exit = await runExampleUntilExit(name, { MAILPLANE_DATABASE_URL: `postgres://postgres:hunter2@127.0.0.1:${port}/mailplane` });
    expect(exit.code).toBe(1);
    const line = onlyLine(exit.stderr);
    expect(line).toBe(`mailplane: cannot start: MAILPLANE_DATABASE_URL: the PostgreSQL database cannot be reached: connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(line).not.toContain('hunter2');
  });

  it('when the TLS key cannot be read', async () => {
    const cert = join(scratch, `${name}-cert.pem`);
    writeFileSync(cert, '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n');
    const key = join(scratch, 'missing-key.pem');
    const exit = await runExampleUntilExit(name, { MAILPLANE_SMTP_PORT: '0', MAILPLANE_SMTP_TLS_KEY: key, MAILPLANE_SMTP_TLS_CERT: cert });
    expect(exit.code).toBe(1);
    expect(onlyLine(exit.stderr)).toMatch(new RegExp(`^mailplane: cannot start: MAILPLANE_SMTP_TLS_KEY: cannot read ${key} \\(no such file\\)`));
  });

  it('when the secret is shorter than 32 characters', async () => {
    const exit = await runExampleUntilExit(name, { MAILPLANE_SECRET: 'only-twenty-chars-ok' });
    expect(exit.code).toBe(1);
    expect(onlyLine(exit.stderr)).toBe('mailplane: cannot start: the mailplane secret must be at least 32 characters (this one has 20)');
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
