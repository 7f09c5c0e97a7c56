/**
 * Self time by function from a V8 CPU profile (what `node --cpu-prof` writes, or the inspector's
 * `Profiler.stop`): each sample is charged to the function on top of the stack, so the table shows
 * where the main thread spent its time, not who called it. Work on other threads (libuv's pool,
 * where the DKIM signatures run) is not in it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The part of a `.cpuprofile` this reads. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  /** Microseconds from the previous sample to each one. */
  timeDeltas?: number[];
}

/** Options of {@link selfTime}. */
export interface SelfTimeOptions {
  /** Rows per function (default) or per file. */
  by?: 'function' | 'file';
  /** Leave out the samples of the profile's first seconds (start-up: loading and compiling modules). */
  skipSeconds?: number;
}

/** One row of {@link selfTime}: a function (name, file relative to the repository, 1-based line). */
export interface SelfTimeRow {
  function: string;
  file: string;
  samples: number;
  percent: number;
}

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Where a frame is, short: a repository path, `node_modules/<package>/…`, or `node:<module>`. */
function place(url: string, line: number): string {
  if (!url) return '(native)';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const short = path.startsWith(root) ? path.slice(root.length) : path;
  return `${short}:${line + 1}`;
}

/**
 * The `top` functions (or files) by self samples, with their share of all samples (idle and GC
 * included), over one or more profiles.
 */
export function selfTime(
  profiles: CpuProfile | CpuProfile[],
  top = 20,
  { by = 'function', skipSeconds = 0 }: SelfTimeOptions = {},
): SelfTimeRow[] {
  const counts = new Map<string, { function: string; file: string; samples: number }>();
  let total = 0;
  for (const profile of Array.isArray(profiles) ? profiles : [profiles]) {
    const byNode = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
    let elapsedUs = 0;
    profile.samples.forEach((id, i) => {
      elapsedUs += profile.timeDeltas?.[i] ?? 0;
      if (elapsedUs < skipSeconds * 1e6) return;
      const frame = byNode.get(id)!;
      const name = frame.functionName || '(anonymous)';
      const where = name.startsWith('(') && !frame.url ? '' : place(frame.url, frame.lineNumber);
      const file = by === 'file' ? where.replace(/:\d+$/, '') : where;
      const key = by === 'file' ? file || name : `${name}@${file}`;
      const row = counts.get(key) ?? { function: by === 'file' ? '' : name, file: file || name, samples: 0 };
      row.samples += 1;
      counts.set(key, row);
      total += 1;
    });
  }
  return [...counts.values()]
    .sort((a, b) => b.samples - a.samples)
    .slice(0, top)
    .map((row) => ({ ...row, percent: Number(((100 * row.samples) / total).toFixed(1)) }));
}

/**
 * `npx tsx bench/lib/cpu-profile.ts FILE.cpuprofile… [--top N] [--by file] [--skip S]` prints the
 * table of saved profiles (from `node --cpu-prof`, or `BENCH_CPU_PROF=<dir> npm run bench -- <case>`),
 * leaving out the first S seconds of each.
 */
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const option = (flag: string) => {
    const at = args.indexOf(flag);
    return at >= 0 ? args.splice(at, 2)[1] : undefined;
  };
  const top = Number(option('--top') ?? 25);
  const by = option('--by') === 'file' ? 'file' : 'function';
  const skipSeconds = Number(option('--skip') ?? 0);
  if (args.length === 0)
    throw new Error('usage: tsx bench/lib/cpu-profile.ts FILE.cpuprofile… [--top N] [--by file] [--skip S]');
  const profiles = args.map((file) => JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  console.table(selfTime(profiles, top, { by, skipSeconds }));
}
