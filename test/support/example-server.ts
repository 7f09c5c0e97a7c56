/**
 * Starts an example server as a child process, as `npm start` does but from the bundle of this run
 * (test/setup/build-programs.ts), on a free port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { programFile } from './programs.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** How long a stopping server may take to close before it is killed. */
const STOP_GRACE_MS = 15_000;

/** A running example server. */
export interface ExampleServer {
  baseUrl: string;
  /** Its data directory (a fresh temporary one unless `MAILPLANE_DATA_DIR` was given). */
  dataDir: string;
  /** The account key it printed on first start. */
  accountKey: string;
  output(): string;
  stop(): Promise<void>;
}

/** How {@link startExample} starts the process. */
export interface StartOptions {
  /** The process umask, e.g. `'000'` (set by a shell before it runs the server); default: inherited. */
  umask?: string;
  /** Run `mailplane <cli>` (cli/main.ts, e.g. `['start', '--koa']`) instead of the example's server file. */
  cli?: string[];
  /**
   * Run the example's source through tsx, as `npm start` does, instead of this run's bundle: for the
   * test of the README's own commands.
   */
  throughTsx?: boolean;
}

/**
 * Starts `examples/<name>/server.ts` with a throwaway data directory (removed on stop) and extra
 * environment; a `MAILPLANE_DATA_DIR` given in `env` is used, and left in place, instead.
 */
export async function startExample(
  name: 'express' | 'koa',
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<ExampleServer> {
  const dataDir = env.MAILPLANE_DATA_DIR ?? mkdtempSync(join(tmpdir(), `mailplane-${name}-`));
  const ownDataDir = env.MAILPLANE_DATA_DIR === undefined;
  const script = options.cli ? [programFile('cli'), ...options.cli] : [programFile(name)];
  const command = options.throughTsx
    ? [join(root, 'node_modules/.bin/tsx'), join(root, `examples/${name}/server.ts`)]
    : [process.execPath, ...script];
  const [file, args] =
    options.umask === undefined
      ? [command[0]!, command.slice(1)]
      : ['/bin/sh', ['-c', `umask ${options.umask} && exec "$0" "$@"`, ...command]];
  const child: ChildProcess = spawn(file, args, {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      MAILPLANE_DATA_DIR: dataDir,
      MAILPLANE_DATABASE_URL: `sqlite:${join(dataDir, 'mailplane.db')}`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, so that stop() can end the server with whatever started it (a
    // shell for `umask`, tsx).
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`example did not start:\n${output}`)), 30_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`example exited with ${code}:\n${output}`));
    });
  });
  const accountKey =
    /account API key \(shown once, keep it\): (\S+)/.exec(output)?.[1] ?? env.MAILPLANE_ACCOUNT_API_KEY ?? '';
  return {
    baseUrl,
    dataDir,
    accountKey,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        // A server whose event loop is stuck never handles SIGTERM: kill its process group rather
        // than leave it spinning after the tests.
        const stuck = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(stuck);
      }
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** How an example process that was expected to fail at start-up ended. */
export interface ExampleExit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `examples/<name>/server.ts` (with a throwaway data directory unless `env` names one) and
 * waits for it to exit on its own; fails when it is still running after `timeoutMs` (it started
 * when it should have refused to).
 */
export async function runExampleUntilExit(
  name: 'express' | 'koa',
  env: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<ExampleExit> {
  const dataDir = env.MAILPLANE_DATA_DIR ?? mkdtempSync(join(tmpdir(), `mailplane-${name}-`));
  const child = spawn(process.execPath, [programFile(name)], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      MAILPLANE_DATA_DIR: dataDir,
      MAILPLANE_DATABASE_URL: `sqlite:${join(dataDir, 'mailplane.db')}`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the example kept running:\n${stdout}${stderr}`));
      }, timeoutMs);
      child.once('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    return { code, stdout, stderr };
  } finally {
    if (env.MAILPLANE_DATA_DIR === undefined) rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * A documentation command as a reader pastes it against `server`: the documented address
 * (`http://127.0.0.1:3000` or `http://localhost:3000`, the example's default) becomes the server's
 * own (tests run it on a free port), and the key placeholder `mpak_…` the account key it printed,
 * as the reader puts in theirs. Nothing else is changed.
 */
export function asPastedAgainst(command: string, server: Pick<ExampleServer, 'baseUrl' | 'accountKey'>): string {
  const origin = new URL(server.baseUrl).origin;
  return command
    .replaceAll(/http:\/\/(?:127\.0\.0\.1|localhost):3000(?![0-9])/g, origin)
    .replaceAll('mpak_…', server.accountKey);
}
