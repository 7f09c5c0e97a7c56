import { defineConfig } from 'tsup';
import { packageEntries } from './scripts/package-entries.js';
import { writeDashboardAssets } from './src/dashboard/build-assets.js';

export default defineConfig({
  entry: {
    ...packageEntries,
    // The `mailplane` command (package.json `bin`); its `#!/usr/bin/env node` line is kept by esbuild.
    cli: 'cli/main.ts',
  },
  format: ['esm'],
  target: 'node20',
  // The type declarations are bundled after this build (scripts/build-declarations.ts).
  dts: false,
  sourcemap: true,
  clean: true,
  splitting: true,
  // esbuild only bundles the dashboard's UI at build time (src/dashboard/build-assets.ts)
  external: ['better-sqlite3', 'pg', 'kysely', 'express', 'koa', 'vitest', 'esbuild'],
  // The dashboard's browser code, bundled into dist/dashboard-assets/ and shipped in the package.
  onSuccess: () => writeDashboardAssets('dist/dashboard-assets', 'src/dashboard/ui/main.ts'),
});
