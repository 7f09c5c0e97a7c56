/**
 * Where a V8 CPU profile spent its time: `npx tsx bench/profile-summary.ts <file.cpuprofile>…
 * [--top N] [--by file]` prints the entries with the most self time (function and source line, or
 * whole files with `--by file`) as a share of the samples, idle and GC listed as V8 names them.
 * Profiles come from `node --cpu-prof`, or from `BENCH_CPU_PROF=<dir> npm run bench -- <case>`.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  /** Microseconds from the previous sample to each one. */
  timeDeltas: number[];
}

/** One line of the summary. */
export interface ProfileEntry {
  name: string;
  samples: number;
  share: number;
}

const shortUrl = (url: string) => {
  if (!url) return '';
  const path = url.startsWith('file://') ? new URL(url).pathname : url;
  const inModules = path.lastIndexOf('node_modules/');
  return inModules >= 0 ? path.slice(inModules + 'node_modules/'.length) : relative(process.cwd(), path);
};

/**
 * Sums the self samples of one or more profiles by function (or by file) and sorts them, largest
 * first. Samples of the first `skipSeconds` of each profile (start-up: module loading, compiling)
 * are left out.
 */
export function summarise(profiles: Profile[], by: 'function' | 'file', skipSeconds = 0): ProfileEntry[] {
  const totals = new Map<string, number>();
  let all = 0;
  for (const profile of profiles) {
    const hits = new Map<number, number>();
    let elapsed = 0;
    profile.samples.forEach((id, i) => {
      elapsed += profile.timeDeltas[i] ?? 0;
      if (elapsed >= skipSeconds * 1e6) hits.set(id, (hits.get(id) ?? 0) + 1);
    });
    for (const node of profile.nodes) {
      const count = hits.get(node.id) ?? 0;
      if (count === 0) continue;
      const { functionName, url, lineNumber } = node.callFrame;
      const file = shortUrl(url);
      const name = by === 'file' ? file || `(${functionName || 'anonymous'})` : `${functionName || '(anonymous)'} ${file}${file ? `:${lineNumber + 1}` : ''}`;
      totals.set(name, (totals.get(name) ?? 0) + count);
      all += count;
    }
  }
  return [...totals]
    .map(([name, samples]) => ({ name, samples, share: samples / all }))
    .sort((a, b) => b.samples - a.samples);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const option = (flag: string) => {
    const at = args.indexOf(flag);
    return at >= 0 ? args.splice(at, 2)[1] : undefined;
  };
  const top = Number(option('--top') ?? 25);
  const by = option('--by') === 'file' ? 'file' : 'function';
  const skip = Number(option('--skip') ?? 0);
  const profiles = args.map((file) => JSON.parse(readFileSync(file, 'utf8')) as Profile);
  for (const entry of summarise(profiles, by, skip).slice(0, top)) {
    console.log(`${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.name}`);
  }
}
