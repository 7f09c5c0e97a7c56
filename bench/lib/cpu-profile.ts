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

/** The `top` functions by self samples, with their share of all samples (idle and GC included). */
export function selfTime(profile: CpuProfile, top = 20): SelfTimeRow[] {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const counts = new Map<string, { function: string; file: string; samples: number }>();
  for (const id of profile.samples) {
    const frame = byNode.get(id)!;
    const name = frame.functionName || '(anonymous)';
    const file = name.startsWith('(') && !frame.url ? '' : place(frame.url, frame.lineNumber);
    const key = `${name}@${file}`;
    const row = counts.get(key) ?? { function: name, file, samples: 0 };
    row.samples += 1;
    counts.set(key, row);
  }
  const total = profile.samples.length;
  return [...counts.values()]
    .sort((a, b) => b.samples - a.samples)
    .slice(0, top)
    .map((row) => ({ ...row, percent: Number(((100 * row.samples) / total).toFixed(1)) }));
}

/** `npx tsx bench/lib/cpu-profile.ts FILE.cpuprofile [TOP]` prints the table of a saved profile. */
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [file, top] = process.argv.slice(2);
  if (!file) throw new Error('usage: tsx bench/lib/cpu-profile.ts FILE.cpuprofile [TOP]');
  console.table(selfTime(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(top ?? 25)));
}
