/**
 * One bash process that commands are typed into one after another, as a reader pastes the
 * documentation's commands into one terminal: variables and functions defined by one command are
 * there for the next.
 */
import { spawn } from 'node:child_process';

/** What one command printed (stdout and stderr, interleaved as they came) and its exit status. */
export interface BashResult {
  output: string;
  /** The exit status of the command's last pipeline (`$?` after it). */
  status: number;
}

/** A running bash session; {@link BashSession.close} ends it. */
export interface BashSession {
  /** Types `command` (one or more lines) and waits until it has run; rejects after `timeoutMs` (default 20 s). */
  run(command: string, options?: { timeoutMs?: number }): Promise<BashResult>;
  close(): void;
}

/**
 * Starts `bash --norc --noprofile` with `env` added to this process's environment. Its stderr is
 * joined to its stdout, so that the output interleaves as in a terminal and nothing a command
 * printed arrives after the marker that ends it.
 */
export function bashSession(env: Record<string, string> = {}, options: { cwd?: string } = {}): BashSession {
  const bash = spawn('bash', ['--norc', '--noprofile'], { env: { ...process.env, ...env }, cwd: options.cwd });
  let output = '';
  let exited = false;
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  bash.stdout.on('data', collect);
  bash.stderr.on('data', collect); // until `exec 2>&1` below has run
  bash.once('exit', () => {
    exited = true;
    for (const listener of listeners) listener();
  });
  bash.stdin.write('exec 2>&1\n');
  let commands = 0;
  return {
    run(command, { timeoutMs = 20_000 } = {}) {
      // The marker is printed by the session itself, after the command, with the command's status.
      const marker = `__bash_session_done_${++commands}__`;
      const pattern = new RegExp(`\\n?${marker} (\\d+)\\n`);
      const start = output.length;
      bash.stdin.write(`${command}\n__bash_session_status=$?; echo; echo "${marker} $__bash_session_status"\n`);
      return new Promise<BashResult>((resolve, reject) => {
        const finish = () => {
          const done = pattern.exec(output.slice(start));
          if (done) {
            settle();
            resolve({ output: output.slice(start, start + done.index).trim(), status: Number(done[1]) });
          } else if (exited) {
            settle();
            reject(new Error(`bash exited while running:\n${command}\n${output.slice(start)}`));
          }
        };
        const timer = setTimeout(() => {
          settle();
          reject(new Error(`still running after ${timeoutMs} ms:\n${command}\noutput so far:\n${output.slice(start)}`));
        }, timeoutMs);
        const settle = () => {
          clearTimeout(timer);
          listeners.delete(finish);
        };
        listeners.add(finish);
        finish();
      });
    },
    close: () => {
      if (!exited) bash.kill();
    },
  };
}
