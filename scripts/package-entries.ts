/**
 * The package's modules (package.json `exports`), by their file name in `dist/` and the source each is
 * built from. tsup bundles their JavaScript (tsup.config.ts); scripts/build-declarations.ts bundles
 * their type declarations.
 */
export const packageEntries = {
  index: 'src/index.ts',
  'storage-kysely': 'adapters/storage/kysely/index.ts',
  'transport-smtp': 'adapters/transport/smtp/index.ts',
  node: 'adapters/http/node/index.ts',
  express: 'adapters/http/express/index.ts',
  koa: 'adapters/http/koa/index.ts',
  testing: 'src/testing/index.ts',
  dashboard: 'src/dashboard/index.ts',
  client: 'client/index.ts',
} as const;
