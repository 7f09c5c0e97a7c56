/**
 * Setup file of the tests that share worker processes (vitest.config.ts): a file must stop what it
 * started. At its end, the timers, sockets and servers that keep the process alive must be back to
 * what they were at its start; a job runner left polling or a server left listening would otherwise
 * run on, and cost CPU, through every later file of the process.
 */
import { afterAll, beforeAll } from 'vitest';

/** How long a file's resources may take to wind down after its last test (a pool's QUIT, a socket's close). */
const SETTLE_MS = 10_000;

/** The kinds of resource a file must not leave behind. */
const WATCHED = new Set([
  'Timeout',
  'Immediate',
  'TCPSocketWrap',
  'TCPServerWrap',
  'UDPWrap',
  'PipeWrap',
  'ProcessWrap',
]);

let atStart = new Map<string, number>();

beforeAll(() => {
  atStart = countResources();
});

afterAll(async () => {
  const deadline = Date.now() + SETTLE_MS;
  let left = leftBehind();
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = leftBehind();
  }
  if (left.length > 0)
    throw new Error(
      `the file left resources behind (kind: at its start -> ${SETTLE_MS / 1000} s after its end): ${left.join(', ')}`,
    );
}, SETTLE_MS + 5_000);

function leftBehind(): string[] {
  const now = countResources();
  return [...now]
    .filter(([kind, count]) => count > (atStart.get(kind) ?? 0))
    .map(([kind, count]) => `${kind}: ${atStart.get(kind) ?? 0} -> ${count}`);
}

function countResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo())
    if (WATCHED.has(kind)) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}
