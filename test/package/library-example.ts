/**
 * The README's library example (the block marked `docs-test: id library-example`), run as a user
 * runs it: compiled in a project that installed the tarball, started with `node`, then used over
 * HTTP until an email it sent is in its sandbox, DKIM-verified. The only edits are the ones a
 * reader makes on a busy machine: its ports 3000 and 2525 become free ones.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConsumerProject } from '../support/consumer-project.js';
import { codeBlock } from '../support/markdown-blocks.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads the API's JSON answers
type Json = any;

const POLL = { timeout: 30_000, interval: 100 };

/** A TCP port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A started example: its output so far, and a way to stop it. */
interface Running {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<number | null>;
}

function startNode(project: ConsumerProject, script: string, env: Record<string, string>): Running {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  if (!('MAILPLANE_SECRET' in env)) delete childEnv.MAILPLANE_SECRET;
  const child = spawn(process.execPath, [script], { cwd: project.dir, env: childEnv });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Runs the README's library example in `project()` (which the caller created from the tarball). */
export function describeLibraryExample(project: () => ConsumerProject): void {
  describe("the README's library example, in a project that installed the tarball", () => {
    const running: Running[] = [];
    afterEach(async () => {
      for (const example of running.splice(0)) {
        example.child.kill('SIGTERM');
        await example.exited;
      }
    });

    /** Writes the example with its ports replaced, compiles the project, and answers the script's path. */
    async function buildExample(httpPort: number, smtpPort: number): Promise<string> {
      const block = codeBlock('README.md', 'library-example');
      const code = block.code.replaceAll('3000', String(httpPort)).replaceAll('2525', String(smtpPort));
      await project().write('library-example.ts', code);
      expect(await project().compile()).toEqual([]);
      return join(project().dir, 'build', 'library-example.js');
    }

    it('stops with the way to make a secret when MAILPLANE_SECRET is unset, and listens on nothing', async () => {
      const script = await buildExample(await freePort(), await freePort());
      const example = startNode(project(), script, {});
      running.push(example);
      expect(await example.exited).not.toBe(0);
      expect(example.output()).toContain('openssl rand -hex 32');
      expect(example.output()).not.toContain('account API key');
    });

    it('prints the account key once, and sends an email that arrives DKIM-verified in its sandbox', async () => {
      const [httpPort, smtpPort] = [await freePort(), await freePort()];
      const script = await buildExample(httpPort, smtpPort);
      const example = startNode(project(), script, { MAILPLANE_SECRET: randomBytes(32).toString('hex') });
      running.push(example);
      await vi.waitFor(() => expect(example.output()).toContain(`SMTP relay on 127.0.0.1:${smtpPort}`), POLL);
      const key = /account API key \(shown once, keep it\): (\S+)/.exec(example.output())?.[1];
      expect(key).toMatch(/^mpak_/);

      const api = `http://127.0.0.1:${httpPort}/api/v1`;
      const call = async (path: string, header: Record<string, string>, body?: unknown): Promise<Json> => {
        const response = await fetch(`${api}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { 'content-type': 'application/json', ...header },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        const json = (await response.json()) as Json;
        expect(response.status, `${path}: ${JSON.stringify(json)}`).toBeLessThan(300);
        return json;
      };
      const account = { 'x-account-apikey': key! };
      const sub = { 'x-subaccount-apikey': (await call('/account/subaccount/', account, { name: 'Acme' })).apiKey };
      const domain = await call('/subaccount/domain/', sub, { name: 'acme.test' });
      expect(await call(`/subaccount/domain/${domain.id}/verify`, sub, {})).toMatchObject({ verified: true });
      const [sent] = await call('/subaccount/email/', sub, {
        from: { email: 'hello@acme.test' },
        to: [{ email: 'ada@example.com' }],
        subject: 'Hello from the library',
        textBody: 'It works.',
      });
      await vi.waitFor(
        async () => expect((await call(`/account/message/${sent.messageId}`, account)).status).toBe('delivered'),
        POLL,
      );
      const [caught] = await call('/account/sandbox/message?limit=1', account);
      const received = await call(`/account/sandbox/message/${caught.id}`, account);
      expect(received).toMatchObject({
        messageId: sent.messageId,
        rcptTo: ['ada@example.com'],
        subject: 'Hello from the library',
        dkim: { result: 'pass', domain: 'acme.test' },
      });
    });
  });
}
