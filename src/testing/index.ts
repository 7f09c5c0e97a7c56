/**
 * `mailplane/testing`: conformance suites for adapter authors. Requires vitest.
 *
 * @packageDocumentation
 */
export { runStoreConformance, sampleSubAccount, type StoreConformanceOptions } from './store-conformance.js';
