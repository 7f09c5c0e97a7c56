/**
 * Vitest global setup: bundles the programs the tests start as child processes (the `mailplane`
 * command line, the Express and Koa example servers, the multi-process tests' workers) once per run, the way the
 * package's build does (esbuild, dependencies left to node_modules, the dashboard's assets beside
 * them). Started through tsx, each process compiled and loaded some 430 source files through a
 * loader thread: about 2.9 CPU-seconds before it did anything, against 0.9 for a bundle, and the
 * suite starts over a hundred of them.
 *
 * The test of the README's quick start (test/e2e/quick-start.test.ts) still starts its servers
 * through tsx, as `npm start` does.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { writeDashboardAssets } from '../../src/dashboard/build-assets.js';
import type { ProgramName } from '../support/programs.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Each program's source, relative to the repository's root. */
const PROGRAM_ENTRIES: Record<ProgramName, string> = {
  cli: 'cli/main.ts',
  express: 'examples/express/server.ts',
  koa: 'examples/koa/server.ts',
  'delivery-worker': 'test/support/delivery-worker.ts',
  'job-worker': 'test/support/job-worker.ts',
};

/** Builds the programs into a directory of this run, and removes it when the run ends. */
export default async function buildPrograms(project: TestProject): Promise<() => void> {
  // Inside node_modules, so that the bundles' imports of dependencies resolve as the sources' do.
  const cache = join(root, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const outdir = mkdtempSync(join(cache, 'mailplane-test-programs-'));
  await build({
    entryPoints: PROGRAM_ENTRIES,
    absWorkingDir: root,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    // The aliases `mailplane/*` of tsconfig.json's paths, as tsx and vitest resolve them.
    tsconfig: join(root, 'tsconfig.json'),
    logLevel: 'warning',
  });
  // Where the built dashboard reads its assets, as in the package (src/dashboard/assets.ts).
  await writeDashboardAssets(join(outdir, 'dashboard-assets'));
  project.provide('mailplanePrograms', outdir);
  return () => rmSync(outdir, { recursive: true, force: true });
}
