// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'docs/api/', 'node_modules/', 'coverage/', 'data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
      'no-control-regex': 'off',
    },
  },
  {
    // The development-only driver selector (dev/better-sqlite3): plain CommonJS run by Node.
    files: ['dev/**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // mailplane/client runs on fetch alone (Node, Deno, Bun, browsers, edge runtimes): no Node
    // built-ins, nothing of the server, no package but openapi-fetch.
    files: ['client/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!openapi-fetch$|\\./[\\w-]+\\.js$)',
              message: 'client/ imports only openapi-fetch and its own files (see docs/client.md)',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      // The core never imports adapters, frameworks or drivers (see docs/architecture.md).
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/adapters/**'], message: 'src/ must not import adapters/' },
            {
              group: ['express', 'koa', 'kysely', 'pg', 'better-sqlite3'],
              message: 'src/ stays framework- and driver-agnostic',
            },
            {
              group: ['vitest'],
              allowTypeImports: true,
              message:
                'vitest is an optional peer: take describe/expect/it from src/testing/vitest.ts (mailplane/testing must load without it)',
            },
          ],
        },
      ],
    },
  },
);
