import type { MailplaneStore } from 'mailplane';
import { runStoreConformance } from 'mailplane/testing';
import { openKyselyStore } from 'mailplane/storage/kysely';
import { openTestStore, storeKinds } from '../support/databases.js';

for (const kind of storeKinds) {
  const closers = new WeakMap<MailplaneStore, () => Promise<void>>();
  const urls = new WeakMap<MailplaneStore, string>();
  runStoreConformance({
    name: `kysely on ${kind}`,
    create: async () => {
      const { store, url, close } = await openTestStore(kind);
      closers.set(store, close);
      urls.set(store, url);
      return store;
    },
    destroy: (store) => closers.get(store)!(),
    another: (store) => openKyselyStore({ url: urls.get(store)!, maxConnections: 5 }),
  });
}
