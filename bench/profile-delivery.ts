/**
 * Profiles mailplane's half of the delivery benchmark (bench/delivery.ts): the same sink, the same
 * accepted messages, with the main thread's CPU profile taken over the measured window only (not
 * the accepting before it). `npx tsx bench/profile-delivery.ts [CASES]` with cases as in
 * BENCH_DELIVERY_CASES (default `100,100b`); writes `delivery-<case>.cpuprofile` into
 * BENCH_PROFILE_DIR (default the system's temporary directory) and prints the top self-time entries
 * (bench/lib/cpu-profile.ts), with the CPU milliseconds per message of the main thread and of the
 * other threads (bench/lib/thread-cpu.ts), which move far less than msgs/s on a loaded machine.
 * BENCH_PROFILE=0 measures the CPU without the profiler (whose sampling costs CPU of its own).
 * Open a profile in Chrome DevTools for the call tree.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { mailplaneRun, sinkCount } from './delivery.js';
import { selfTime, type CpuProfile } from './lib/cpu-profile.js';
import { startServer } from './lib/process.js';
import { threadCpu, type ThreadCpu } from './lib/thread-cpu.js';

const cases = (process.argv[2] ?? '100,100b').split(',');
const messages = Number(process.env.BENCH_DELIVERY_MESSAGES ?? 5000);
const dir = process.env.BENCH_PROFILE_DIR ?? tmpdir();
const top = Number(process.env.BENCH_PROFILE_TOP ?? 25);
const profiling = process.env.BENCH_PROFILE !== '0';

const sink = await startServer('bench/delivery.ts', { BENCH_DELIVERY_SINK: '1', BENCH_DELIVERY_ONLY: '' });
const port = Number(new URL(sink.baseUrl).port);
const session = new Session();
session.connect();
await session.post('Profiler.enable');
// 500 µs: enough samples in a few seconds for the 1 % entries to be stable, at little cost.
await session.post('Profiler.setSamplingInterval', { interval: 500 });
let sent = 0;
try {
  for (const name of cases) {
    let profile: CpuProfile | undefined;
    let before: ThreadCpu = { main: 0, others: 0, children: 0 };
    let after: ThreadCpu = before;
    const perSecond = await mailplaneRun(
      port,
      sink,
      sent,
      messages,
      Number.parseInt(name, 10) * 1024,
      name.endsWith('b'),
      {
        start: async () => {
          if (profiling) await session.post('Profiler.start');
          before = threadCpu();
        },
        stop: async () => {
          after = threadCpu();
          if (profiling) ({ profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile });
        },
      },
    );
    sent += messages;
    await sinkCount(sink, sent);
    const perMessage = (ms: number) => (ms / messages).toFixed(3);
    const main = after.main - before.main;
    const total = main + after.others - before.others + after.children - before.children;
    console.log(
      `\n${name} (${messages} messages): ${Math.round(perSecond)} msgs/s; CPU ms per message: main thread ${perMessage(main)}, ` +
        `other threads ${perMessage(after.others - before.others)}, sink ${perMessage(after.children - before.children)}; ` +
        // The main thread runs on one core at most; everything together on the machine's cores.
        `ceiling min(1 / main, ${availableParallelism()} cores / all) = ${Math.round(Math.min(messages / main, (availableParallelism() * messages) / total) * 1000)} msgs/s`,
    );
    if (!profile) continue;
    const file = join(dir, `delivery-${name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    console.log(`profile ${file}`);
    console.table(selfTime(profile, top));
  }
} finally {
  session.disconnect();
  await sink.stop();
}
process.exit(0);
