/**
 * CPU time of this process split into its main thread and its other threads (libuv's pool, where
 * the DKIM signatures run, and V8's helpers), from Linux's /proc/self/task. A figure per message
 * that, unlike messages per second, hardly moves when other jobs load the machine. Elsewhere than
 * Linux it reports the process total as the main thread's.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU milliseconds used so far. */
export interface ThreadCpu {
  main: number;
  others: number;
}

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on every Linux build that matters). */
const TICKS = 100;

/** CPU milliseconds of the main thread and of all other threads of this process until now. */
export function threadCpu(): ThreadCpu {
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    const usage = process.cpuUsage();
    return { main: (usage.user + usage.system) / 1000, others: 0 };
  }
  let main = 0;
  let others = 0;
  for (const task of tasks) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    // Fields after the command name (which may hold spaces) in parentheses: utime and stime are 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
    if (Number(task) === process.pid) main += ms;
    else others += ms;
  }
  return { main, others };
}
