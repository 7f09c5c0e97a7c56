import { createMemoryStore, runStoreConformance } from 'mailplane/testing';

runStoreConformance({ name: 'in-memory store', create: async () => createMemoryStore() });
