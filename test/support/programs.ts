/**
 * The programs the tests start as child processes, bundled once per run by
 * test/setup/build-programs.ts: `node <file>` runs one as `tsx <source>` would, without compiling it.
 */
import { join } from 'node:path';
import { inject } from 'vitest';

/**
 * The programs: the `mailplane` command line (cli/main.ts), the example servers
 * (examples/<name>/server.ts), and the workers of the multi-process tests (test/support/<name>.ts).
 */
export type ProgramName = 'cli' | 'express' | 'koa' | 'delivery-worker' | 'job-worker';

declare module 'vitest' {
  interface ProvidedContext {
    /** The directory of this run's bundled programs. */
    mailplanePrograms: string;
  }
}

/** The bundled file of `name`, to run with `node`. */
export function programFile(name: ProgramName): string {
  return join(inject('mailplanePrograms'), `${name}.js`);
}
