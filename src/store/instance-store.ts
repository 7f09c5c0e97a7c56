/**
 * What a store knows about the instance itself rather than about any account: whether it can serve
 * (readiness) and the settings every node of one database must agree on (the secret's check value).
 * Both are optional members of {@link MailplaneStore}: a store without them still works, it just
 * cannot tell a misconfigured node or an unmigrated schema apart from a ready one.
 */

/** The answer of {@link MailplaneStore.ready}: ready, or why not. */
export type StoreReadiness = { ready: true } | { ready: false; reason: string };

/**
 * Instance-wide settings: small named values written once by the first node that starts on a
 * database and read by every later one.
 */
export interface SettingStore {
  /**
   * Stores `value` under `name` unless a value is stored there already, and returns the stored
   * value (this one, or the earlier one). MUST be atomic: of two nodes claiming at once, both get
   * the same answer.
   */
  claim(name: string, value: string): Promise<string>;
}
