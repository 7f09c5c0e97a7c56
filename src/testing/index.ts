/**
 * `mailplane/testing`: the storage conformance suite for adapter authors (requires vitest), an
 * in-memory store and a capture transport for tests of applications built on mailplane.
 *
 * @packageDocumentation
 * @module mailplane/testing
 */
export { runStoreConformance, type StoreConformanceOptions } from './store-conformance.js';
export { newAccount, newSubAccount, sampleSubAccount, unique } from './conformance/fixtures.js';
export { sampleDomain } from './conformance/domains.js';
export { orderedId, sampleBatch, sampleEvent, sampleMessage } from './conformance/messages.js';
export { createMemoryStore } from './memory-store/store.js';
export {
  captureTransport,
  type CaptureAnswer,
  type CaptureTransport,
  type CaptureTransportOptions,
  type CapturedMessage,
} from './capture-transport.js';
