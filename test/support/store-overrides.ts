/**
 * A store whose job queue answers some calls the test's own way (a write that never lands, as when
 * the process dies first) and passes every other call to the real store.
 */
import type { JobStore, MailplaneStore } from 'mailplane';

/** `store` with the methods of `overrides` in place of its `jobs`' own. */
export function withJobStoreOverrides(store: MailplaneStore, overrides: Partial<JobStore>): MailplaneStore {
  // Bound to the real object: a method called on a proxy would see the proxy as `this`.
  const bound = <T extends object>(target: T, key: string | symbol) => {
    const value: unknown = Reflect.get(target, key);
    return typeof value === 'function' ? value.bind(target) : value;
  };
  const jobs = new Proxy(store.jobs, {
    get: (target, key) => (Object.hasOwn(overrides, key) ? overrides[key as keyof JobStore] : bound(target, key)),
  });
  return new Proxy(store, { get: (target, key) => (key === 'jobs' ? jobs : bound(target, key)) });
}
