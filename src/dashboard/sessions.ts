/**
 * Dashboard sessions: opened by signing in with an API key, held by the browser as a random id in
 * an `HttpOnly` cookie, kept by the server as the id's lookup hash with the key encrypted
 * (docs/dashboard.md, "Sessions").
 */
import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../crypto/secrets.js';
import type { Clock } from '../model/time.js';
import type { DashboardSessionRow, DashboardSessionStore } from '../store/index.js';

/** A session as the handler uses it: the key decrypted, and the CSRF token of the session. */
export interface OpenSession {
  /** The cookie value. */
  id: string;
  kind: DashboardSessionRow['kind'];
  apiKey: string;
  /** The token every change must carry in `X-CSRF-Token`. */
  csrfToken: string;
  expiresAt: number;
}

/** How many expired sessions one sign-in removes, so pruning never grows with the backlog. */
const PRUNE_BATCH = 100;

/**
 * The sessions of one dashboard handler. `store` is the instance store's session store when it has
 * one (shared by every node), otherwise a store in this handler's own memory.
 */
export class DashboardSessions {
  constructor(
    private readonly store: DashboardSessionStore,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  /** The CSRF token of a session: a MAC of its id, so nothing more is stored and it cannot be guessed. */
  private csrfToken(id: string): string {
    return this.secrets.sign(`dashboard-csrf.${id}`);
  }

  /** Now in whole milliseconds: the system clock has fractions, the stores keep integers. */
  private now(): number {
    return Math.floor(this.clock.now());
  }

  /** Opens a session for a key already checked, and removes some expired ones. */
  async open(kind: OpenSession['kind'], apiKey: string): Promise<OpenSession> {
    const now = this.now();
    const id = randomBytes(32).toString('base64url');
    const expiresAt = now + Math.floor(this.ttlMs);
    await this.store.prune(now, PRUNE_BATCH);
    await this.store.create({
      idHash: this.secrets.lookupHash(id),
      kind,
      sealedKey: this.secrets.encrypt(apiKey),
      createdAt: now,
      expiresAt,
    });
    return { id, kind, apiKey, csrfToken: this.csrfToken(id), expiresAt };
  }

  /** The live session of a cookie value, or `null` (none, unknown, expired, or sealed under another secret). */
  async find(id: string | undefined): Promise<OpenSession | null> {
    if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
    const row = await this.store.find(this.secrets.lookupHash(id), this.now());
    if (!row) return null;
    let apiKey: string;
    try {
      apiKey = this.secrets.decrypt(row.sealedKey);
    } catch {
      return null;
    }
    return { id, kind: row.kind, apiKey, csrfToken: this.csrfToken(id), expiresAt: row.expiresAt };
  }

  /** Whether `presented` is the session's CSRF token (constant time). */
  checkCsrf(session: OpenSession, presented: string | undefined): boolean {
    return presented !== undefined && this.secrets.verify(`dashboard-csrf.${session.id}`, presented);
  }

  /** Ends a session. */
  async close(session: OpenSession): Promise<void> {
    await this.store.delete(this.secrets.lookupHash(session.id));
  }
}
