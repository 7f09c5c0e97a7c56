/**
 * `mailplane/testing`: conformance suites for adapter authors. Requires vitest.
 *
 * @packageDocumentation
 */
export { runStoreConformance, type StoreConformanceOptions } from './store-conformance.js';
export { newAccount, newSubAccount, sampleSubAccount, unique } from './conformance/fixtures.js';
export { sampleDomain } from './conformance/domains.js';
