import type { ListQuery } from '../../model/paging.js';
import type { RetentionScope } from '../../store/index.js';
import type { TableRows } from './tables.js';

/**
 * How the aggregate stores of the in-memory store reach its tables. Every operation is a
 * synchronous function of the tables, so nothing interleaves inside one; `write` runs it on an
 * overlay committed only if it returns (an operation that throws halfway leaves nothing).
 */
export interface MemoryContext {
  /** Runs `read` on the committed tables (or, in a transaction, on the transaction's view). */
  read<T>(read: (tables: TableRows) => T): Promise<T>;
  /** Runs `write` atomically, serialised with every other write and transaction of the store. */
  write<T>(write: (tables: TableRows) => T): Promise<T>;
  /** The next id of `sequence`; ids are never reused, also after a rollback (as PostgreSQL's). */
  nextId(sequence: string): number;
}

/**
 * A record as callers get it: a deep copy without the row's `key`, so neither side can change
 * the other's objects.
 */
export function toRecord<R extends { key: unknown }>(row: R): Omit<R, 'key'> {
  const { key: _key, ...record } = row;
  return structuredClone(record);
}

/** Like {@link toRecord}, `null` for a missing row. */
export function toRecordOrNull<R extends { key: unknown }>(row: R | undefined): Omit<R, 'key'> | null {
  return row === undefined ? null : toRecord(row);
}

/** A case-insensitive, literal substring match (what `%`, `_` and `\` are in LIKE does not apply). */
export function contains(text: string, search: string | undefined): boolean {
  return search === undefined || text.toLowerCase().includes(search.toLowerCase());
}

/** Rows ordered by id. */
export function byId<R extends { id: number }>(rows: Iterable<R>): R[] {
  return [...rows].sort((a, b) => a.id - b.id);
}

/** One page of `rows` (already filtered) ordered by id, as every list of the contract answers. */
export function page<R extends { id: number }>(rows: Iterable<R>, query: Pick<ListQuery, 'limit' | 'offset'>): R[] {
  return byId(rows).slice(query.offset, query.offset + query.limit);
}

/** Throws as a database's foreign key would when the parent row is missing. */
export function requireParent(exists: boolean, what: string): void {
  if (!exists) throw new Error(`memory store: ${what} does not exist (foreign key)`);
}

/** Throws as a database's unique index would. */
export function uniqueViolation(what: string): never {
  throw new Error(`memory store: duplicate ${what} (unique constraint)`);
}

/** Whether a row (message, event, send, received message) is one a retention delete of `scope` may remove. */
export function inRetentionScope(
  row: { accountId: number; subAccountId: number },
  scope: RetentionScope | undefined,
): boolean {
  const own = scope?.subAccount;
  if (own && (row.accountId !== own.accountId || row.subAccountId !== own.subAccountId)) return false;
  return !scope?.exceptSubAccountIds?.includes(row.subAccountId);
}
