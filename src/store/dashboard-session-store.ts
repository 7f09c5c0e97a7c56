/**
 * Sessions of the dashboard (`mailplane/dashboard`), kept in the store so every node of one
 * database accepts a session another node opened (docs/dashboard.md, "Sessions").
 */

/** One signed-in dashboard session. */
export interface DashboardSessionRow {
  /**
   * The lookup hash (`SecretBox.lookupHash`) of the session id the browser holds in its cookie: a
   * copy of the table gives no usable cookie.
   */
  idHash: string;
  /** Which key signed in: the account's or a sub-account's. */
  kind: 'account' | 'subaccount';
  /** The API key, encrypted with the instance's `SecretBox`; never sent to the browser. */
  sealedKey: string;
  /** When the session was opened, epoch milliseconds. */
  createdAt: number;
  /** When the session ends, epoch milliseconds; an expired session is never returned. */
  expiresAt: number;
}

/** Storage of {@link DashboardSessionRow}s. */
export interface DashboardSessionStore {
  /** Stores a new session. The id hash is random and new; a duplicate MAY throw. */
  create(session: DashboardSessionRow): Promise<void>;
  /** The session with this id hash, or `null` when there is none or it expired at or before `now`. */
  find(idHash: string, now: number): Promise<DashboardSessionRow | null>;
  /** Removes the session (sign-out); removing an unknown one is no error. */
  delete(idHash: string): Promise<void>;
  /** Removes sessions expired at or before `now`, at most `limit` of them; returns how many. */
  prune(now: number, limit: number): Promise<number>;
}

/**
 * A {@link DashboardSessionStore} in this process's memory: the in-memory store's, and the
 * dashboard's own for a store without one (sessions then live on the node that opened them and end
 * with the process).
 */
export function mapDashboardSessionStore(): DashboardSessionStore {
  const rows = new Map<string, DashboardSessionRow>();
  return {
    async create(session) {
      rows.set(session.idHash, { ...session });
    },
    async find(idHash, now) {
      const row = rows.get(idHash);
      return row && row.expiresAt > now ? { ...row } : null;
    },
    async delete(idHash) {
      rows.delete(idHash);
    },
    async prune(now, limit) {
      let removed = 0;
      for (const [idHash, row] of rows) {
        if (removed >= limit) break;
        if (row.expiresAt <= now) {
          rows.delete(idHash);
          removed++;
        }
      }
      return removed;
    },
  };
}
