/**
 * Cache invalidation across nodes. A node caches account configuration (whether an account has a
 * webhook, …); its own writes forget what they change, but another node's writes do not reach it.
 * When the store is shared it keeps a configuration version that every such write changes in its
 * own transaction (`MailplaneStore.cacheVersion`: the Kysely store on PostgreSQL, migration 0022's
 * triggers), so a cache read against the version it was filled at can tell when to drop
 * everything. A store of one process has no version: every write goes through that process.
 */
import type { MailplaneStore } from '../store/index.js';

/** The configuration version a cache was filled at; one per cache, owned by whoever owns the cache. */
export class CacheVersionWatch {
  /** The version last read, or `undefined` before the first read (the cache is then of unknown age). */
  private seen: string | undefined;

  /**
   * Reads the version in `store` (a transaction's store, so the answer is that of the data it
   * reads next) and says whether it differs from the one last read: the cache must then be
   * dropped. The first read always says so. Without a shared version: `false`, and no read.
   */
  async changed(store: Pick<MailplaneStore, 'cacheVersion'>): Promise<boolean> {
    if (!store.cacheVersion) return false;
    const version = await store.cacheVersion();
    if (version === this.seen) return false;
    this.seen = version;
    return true;
  }
}
