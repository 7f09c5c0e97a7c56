/** Runs the real `mailplane` command line (cli/main.ts, bundled once per run) as a child process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { programFile } from './programs.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** How a `mailplane` process ended. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A `mailplane` process started in the background ({@link spawnCli}). */
export interface RunningCli {
  child: ChildProcess;
  /** Resolves when it exits on its own; fails when it still runs after `timeoutMs` (it is then killed). */
  exited: Promise<CliResult>;
}

/** How {@link spawnCli} runs the process. */
export interface CliOptions {
  /** Fails the run when it is still going after this long (default 60 s). */
  timeoutMs?: number;
  /** Node flags before the script, e.g. `['--import', hook]`. */
  nodeArgs?: string[];
}

/**
 * Starts `mailplane <args>` with `env` on top of this process's environment (minus the variables
 * of a developer's own server, which would change what the command reads).
 */
export function spawnCli(
  args: string[],
  env: Record<string, string> = {},
  { timeoutMs = 60_000, nodeArgs = [] }: CliOptions = {},
): RunningCli {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('MAILPLANE_') || name.startsWith('MAILPLANE_TEST_'),
    ),
  );
  const child = spawn(process.execPath, [...nodeArgs, programFile('cli'), ...args], {
    cwd: root,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<CliResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mailplane ${args.join(' ')} kept running:\n${stdout}${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return { child, exited };
}

/** Runs `mailplane <args>` to its end ({@link spawnCli}). */
export function runCli(args: string[], env: Record<string, string> = {}, options: CliOptions = {}): Promise<CliResult> {
  return spawnCli(args, env, options).exited;
}
