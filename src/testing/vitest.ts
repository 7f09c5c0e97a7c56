import type * as Vitest from 'vitest';

/** The vitest API the conformance suite declares its tests with. */
export type VitestApi = typeof Vitest;

/*
 * vitest is an optional peer dependency: applications that only use the in-memory store or the
 * capture transport (under any test runner) must be able to import `mailplane/testing` without it,
 * so it is loaded here, at most once, and a missing vitest only fails runStoreConformance. The load
 * is a top-level await rather than an import() inside runStoreConformance because vitest collects
 * `describe` blocks only while the test file is evaluated, so the suite must be declared
 * synchronously; `require` cannot do it (vitest's CommonJS entry refuses to load).
 */
const loaded: VitestApi | Error = await import('vitest').catch((error: unknown) =>
  error instanceof Error ? error : new Error(String(error)),
);

/**
 * The vitest API, for the conformance suite.
 *
 * @throws Error naming the missing peer dependency when vitest could not be loaded.
 */
export function vitest(): VitestApi {
  if (!(loaded instanceof Error)) return loaded;
  throw new Error(
    `runStoreConformance needs vitest, an optional peer dependency of mailplane/testing (npm install --save-dev vitest): ${loaded.message}`,
    { cause: loaded },
  );
}
