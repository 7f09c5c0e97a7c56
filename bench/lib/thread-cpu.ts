/**
 * CPU time of this process split into its main thread and its other threads (libuv's pool, where
 * the DKIM signatures run, and V8's helpers), from Linux's /proc/self/task. A figure per message
 * that, unlike messages per second, hardly moves when other jobs load the machine. Elsewhere than
 * Linux it reports the process total as the main thread's. Also the CPU of its child processes (the
 * delivery benchmark's sink), which shares the machine's cores with it.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU milliseconds used so far. */
export interface ThreadCpu {
  main: number;
  others: number;
  /** All processes started by this one and theirs (the benchmark's sink), 0 elsewhere than Linux. */
  children: number;
}

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on every Linux build that matters). */
const TICKS = 100;

/** utime + stime in ms from a /proc `stat` line, and the parent pid. */
function parseStat(stat: string): { ms: number; parent: number } {
  // Fields after the command name (which may hold spaces) in parentheses: ppid is the 4th, utime and stime the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS, parent: Number(fields[1]) };
}

const readStat = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null; // ended meanwhile
  }
};

/** CPU milliseconds of every live descendant process of this one. */
function childrenCpu(): number {
  const processes = new Map<number, { ms: number; parent: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(`/proc/${entry}/stat`);
    if (stat) processes.set(Number(entry), parseStat(stat));
  }
  const isDescendant = (pid: number): boolean => {
    for (let at = processes.get(pid)?.parent; at !== undefined && at > 1; at = processes.get(at)?.parent)
      if (at === process.pid) return true;
    return false;
  };
  let ms = 0;
  for (const [pid, { ms: used }] of processes) if (isDescendant(pid)) ms += used;
  return ms;
}

/** CPU milliseconds of the main thread and of all other threads of this process until now. */
export function threadCpu(): ThreadCpu {
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    const usage = process.cpuUsage();
    return { main: (usage.user + usage.system) / 1000, others: 0, children: 0 };
  }
  let main = 0;
  let others = 0;
  for (const task of tasks) {
    const stat = readStat(`/proc/self/task/${task}/stat`);
    if (!stat) continue;
    const { ms } = parseStat(stat);
    if (Number(task) === process.pid) main += ms;
    else others += ms;
  }
  return { main, others, children: childrenCpu() };
}
