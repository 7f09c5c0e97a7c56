import type { DomainRecord } from './domain-store.js';
import type { EpochNs } from '../model/time.js';

/** A message the sandbox mail catcher received, as it is stored. */
export interface NewSandboxMessage {
  accountId: number;
  /** The mailplane message it delivers (from its VERP envelope sender); `null` when it names none. */
  messageId: string | null;
  /** The envelope sender (MAIL FROM). */
  mailFrom: string;
  /** The envelope recipients (RCPT TO), in order. */
  rcptTo: string[];
  /** The `Subject` header, decoded; `''` without one. */
  subject: string;
  /** The message exactly as received (after the SMTP dot-unstuffing). */
  raw: Buffer;
  received: EpochNs;
}

/** A captured message without its content: what the sandbox list shows. */
export interface SandboxMessageSummary extends Omit<NewSandboxMessage, 'raw'> {
  /** Assigned by the store, increasing: a later capture has a larger id. */
  id: number;
}

/** A captured message with its content. */
export interface SandboxMessageRecord extends SandboxMessageSummary {
  raw: Buffer;
}

/**
 * Messages captured by the sandbox mail catcher (`startSandbox`), per account, and the domain
 * lookup its DNS server answers from.
 *
 * - `capture` MUST store the message and then keep only the newest `keep` messages of its account
 *   (by id), deleting the older ones; other accounts' messages MUST NOT be touched.
 * - `list` MUST answer an account's messages newest first (largest id first), `offset` skipped
 *   and at most `limit`, without `raw`; `get` MUST answer `null` for another account's id.
 * - `domainsNamed` MUST answer every stored domain of that exact (lower-case) name, of any sub-account.
 */
export interface SandboxStore {
  capture(message: NewSandboxMessage, keep: number): Promise<SandboxMessageRecord>;
  list(accountId: number, query: { limit: number; offset: number }): Promise<SandboxMessageSummary[]>;
  get(accountId: number, id: number): Promise<SandboxMessageRecord | null>;
  domainsNamed(name: string): Promise<DomainRecord[]>;
}
