import { defineConfig } from 'tsup';
import { writeDashboardAssets } from './src/dashboard/build-assets.js';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'storage-kysely': 'adapters/storage/kysely/index.ts',
    'transport-smtp': 'adapters/transport/smtp/index.ts',
    node: 'adapters/http/node/index.ts',
    express: 'adapters/http/express/index.ts',
    koa: 'adapters/http/koa/index.ts',
    testing: 'src/testing/index.ts',
    dashboard: 'src/dashboard/index.ts',
    // The `mailplane` command (package.json `bin`); its `#!/usr/bin/env node` line is kept by esbuild.
    cli: 'cli/main.ts',
    client: 'client/index.ts',
  },
  format: ['esm'],
  target: 'node20',
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: true,
  // esbuild only bundles the dashboard's UI at build time (src/dashboard/build-assets.ts)
  external: ['better-sqlite3', 'pg', 'kysely', 'express', 'koa', 'vitest', 'esbuild'],
  // The dashboard's browser code, bundled into dist/dashboard-assets/ and shipped in the package.
  onSuccess: () => writeDashboardAssets('dist/dashboard-assets', 'src/dashboard/ui/main.ts'),
});
