/** Starts a server script in its own process (so it gets its own core) and waits until it listens. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A server process started by {@link startServer}. */
export interface ServerProcess {
  baseUrl: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * With `BENCH_CPU_PROF=<dir>` every server process writes a V8 CPU profile into `<dir>` when it
 * stops (`npx tsx bench/profile-summary.ts <dir>/*.cpuprofile` lists where the time went).
 */
const profiling = (): string[] => (process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []);

/** Runs `script` (relative to the repository) with node and the tsx loader and the given environment; resolves on "listening on <url>". */
export async function startServer(script: string, env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...profiling(), '--import', 'tsx', `${root}${script}`], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${output}`)), 60_000);
    child.stdout.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${output}`)));
  });
  return {
    baseUrl,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
