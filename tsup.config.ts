import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'storage-kysely': 'adapters/storage/kysely/index.ts',
    'transport-smtp': 'adapters/transport/smtp/index.ts',
    node: 'adapters/http/node/index.ts',
    express: 'adapters/http/express/index.ts',
    koa: 'adapters/http/koa/index.ts',
    testing: 'src/testing/index.ts',
  },
  format: ['esm'],
  target: 'node20',
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: true,
  external: ['better-sqlite3', 'pg', 'kysely', 'express', 'koa', 'vitest'],
});
