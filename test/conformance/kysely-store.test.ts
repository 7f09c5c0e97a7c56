import type { MailplaneStore } from 'mailplane';
import { runStoreConformance } from 'mailplane/testing';
import { openTestStore, storeKinds } from '../support/databases.js';

for (const kind of storeKinds) {
  const closers = new WeakMap<MailplaneStore, () => Promise<void>>();
  runStoreConformance({
    name: `kysely on ${kind}`,
    create: async () => {
      const { store, close } = await openTestStore(kind);
      closers.set(store, close);
      return store;
    },
    destroy: (store) => closers.get(store)!(),
  });
}
