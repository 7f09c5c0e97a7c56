/** Starts a server script in its own process (so it gets its own core) and waits until it listens. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Characters of a server's output kept after it listens (see {@link startServer}). */
const TAIL_CHARACTERS = 64 * 1024;

/** A server process started by {@link startServer}. */
export interface ServerProcess {
  baseUrl: string;
  /** The server's process id (its memory is read from /proc by bench/hostile.ts). */
  pid: number;
  /** What it printed until it listened, and the end of what it printed since. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * With `BENCH_CPU_PROF=<dir>` every server process writes a V8 CPU profile into `<dir>` when it
 * stops (`npx tsx bench/lib/cpu-profile.ts <dir>/*.cpuprofile --skip 3` lists where the time went).
 */
const profiling = (): string[] =>
  process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];

/** Runs `script` (relative to the repository) with node and the tsx loader and the given environment; resolves on "listening on <url>". */
export async function startServer(script: string, env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...profiling(), '--import', 'tsx', `${root}${script}`], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // What the server printed up to "listening", whole (keys, credentials), then only the last
  // TAIL_CHARACTERS: a server under load logs a line per request, and keeping (and scanning) all of
  // it would cost the load generator, which runs in this process, more and more as a case goes on.
  let startup = '';
  let tail = '';
  let listening = false;
  const take = (chunk: Buffer) => {
    if (!listening) startup += chunk;
    else tail = (tail + chunk).slice(-TAIL_CHARACTERS);
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${startup}`)), 60_000);
    const seek = () => {
      const match = /listening on (http:\/\/\S+)/.exec(startup);
      if (!match) return;
      listening = true;
      child.stdout.off('data', seek);
      clearTimeout(timer);
      resolve(match[1]!);
    };
    child.stdout.on('data', seek);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${startup}${tail}`)));
  });
  return {
    baseUrl,
    pid: child.pid!,
    output: () => startup + tail,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
