import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^mailplane\/storage\/kysely$/, replacement: here('./adapters/storage/kysely/index.ts') },
      { find: /^mailplane\/transport\/smtp$/, replacement: here('./adapters/transport/smtp/index.ts') },
      { find: /^mailplane\/node$/, replacement: here('./adapters/http/node/index.ts') },
      { find: /^mailplane\/express$/, replacement: here('./adapters/http/express/index.ts') },
      { find: /^mailplane\/koa$/, replacement: here('./adapters/http/koa/index.ts') },
      { find: /^mailplane\/dashboard$/, replacement: here('./src/dashboard/index.ts') },
      { find: /^mailplane\/testing$/, replacement: here('./src/testing/index.ts') },
      { find: /^mailplane\/client$/, replacement: here('./client/index.ts') },
      { find: /^mailplane$/, replacement: here('./src/index.ts') },
    ],
  },
  test: {
    // Bundles the command line and the example servers once, for the tests that start them.
    globalSetup: ['test/setup/build-programs.ts'],
    // Four files at once on two cores: a test that starts processes (the examples, the CLI, a packed
    // tarball's project) can take several times its unloaded time.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Most test time is spent waiting (sockets, timers, the database server), not computing: on the
    // 2-core machines vitest's default (cores - 1) runs one file at a time and leaves a core idle.
    maxWorkers: Number(process.env.MAILPLANE_TEST_WORKERS ?? 4),
    projects: [
      // The test files share their worker processes: each process imports the sources once, not once
      // per file (about 2 CPU-seconds a file; the end-to-end files took 159 CPU-s in a fresh process
      // each and 127 s this way). What a file starts it stops (useTestApi closes its instances, the
      // example servers, CLI processes and browsers are stopped); test/setup/leaks.ts fails a file
      // that leaves a timer, a socket or a child process behind, which would otherwise run on into
      // the next file.
      {
        extends: true,
        test: {
          name: 'in-process',
          include: [
            'test/unit/**/*.test.ts',
            'test/integration/**/*.test.ts',
            'test/conformance/**/*.test.ts',
            'test/e2e/**/*.test.ts',
          ],
          isolate: false,
          setupFiles: ['test/setup/leaks.ts'],
        },
      },
      // The packed tarball's file keeps a fresh process: it imports the built package, never the sources.
      { extends: true, test: { name: 'processes', include: ['test/package/**/*.test.ts'] } },
    ],
  },
});
