/**
 * The store as createMailplane uses it, wrapped by withStorageFaults, passes the whole conformance
 * suite: the wrapper changes what faults look like and nothing else (null and Outcome answers,
 * transactions, atomicity, leases).
 */
import { withStorageFaults, type MailplaneStore } from 'mailplane';
import { runStoreConformance } from 'mailplane/testing';
import { openKyselyStore } from 'mailplane/storage/kysely';
import { openTestStore, storeKinds } from '../support/databases.js';

for (const kind of storeKinds) {
  const closers = new WeakMap<MailplaneStore, () => Promise<void>>();
  const urls = new WeakMap<MailplaneStore, string>();
  runStoreConformance({
    name: `kysely on ${kind}, wrapped by withStorageFaults`,
    create: async () => {
      const { store, url, close } = await openTestStore(kind);
      const wrapped = withStorageFaults(store);
      closers.set(wrapped, close);
      urls.set(wrapped, url);
      return wrapped;
    },
    destroy: (store) => closers.get(store)!(),
    another: async (store) => withStorageFaults(await openKyselyStore({ url: urls.get(store)!, maxConnections: 5 })),
  });
}
