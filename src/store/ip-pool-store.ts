import type { ListQuery } from '../model/paging.js';
import type { EpochNs } from '../model/time.js';
import type { Outcome } from './outcome.js';

/** Values of an IP's `type`. */
export const IpType = { Shared: 0, Dedicated: 1 } as const;
/** 0 = Shared (the address also sends for others; pooled reputation), 1 = Dedicated (this account only). */
export type IpType = (typeof IpType)[keyof typeof IpType];

/** Values of an IP's `state`. */
export const IpState = { Active: 0, Paused: 1, Warming: 2 } as const;
/**
 * 0 = Active (sends without warmup limits), 1 = Paused (never chosen for sending),
 * 2 = Warming (sends within the daily limits of the auto-warmup plan).
 */
export type IpState = (typeof IpState)[keyof typeof IpState];

/** An address the account sends from. */
export interface IpRecord {
  id: number;
  accountId: number;
  /** Canonical text form: dotted IPv4, or compressed lower-case IPv6 (RFC 5952). */
  publicIp: string;
  reverseDnsHostname: string;
  type: IpType;
  state: IpState;
  autoWarmupEnabled: boolean;
  /** When the current warmup began, or `0n` when the IP is not warming. */
  warmupStartedAt: EpochNs;
  created: EpochNs;
  updated: EpochNs;
}

/** What {@link IpStore.allocate} needs for each address. */
export type NewIp = Omit<IpRecord, 'id' | 'updated'>;

/**
 * What {@link IpStore.allocate} answers: the new IPs, or `already-allocated` with, when the store
 * can tell, the first address found taken (by this account or another).
 */
export type AllocateOutcome =
  { ok: true; value: IpRecord[] } | { ok: false; reason: 'already-allocated'; address?: string };

/** The fields {@link IpStore.update} can change. */
export interface IpPatch {
  reverseDnsHostname?: string;
  state?: IpState;
  autoWarmupEnabled?: boolean;
  warmupStartedAt?: EpochNs;
  updated: EpochNs;
}

/**
 * Storage of the account's sending IPs. Scoped by `accountId`: another account's IP is
 * indistinguishable from a missing one.
 *
 * - `allocate` MUST be all-or-nothing and MUST answer `already-allocated` (storing none) when any of
 *   the addresses is allocated already, to this account or to any other: an address belongs to one
 *   account across the whole store. This MUST hold under concurrent allocations, also by different
 *   accounts. The answer names the address found taken when the store can tell.
 * - `list` MUST order by id and match `search` case-insensitively as a substring of the address.
 * - `delete` MUST refuse (`in-pool`) an IP that belongs to a pool, atomically with respect to
 *   {@link IpPoolStore.create} and {@link IpPoolStore.update} of the same account.
 */
export interface IpStore {
  allocate(accountId: number, ips: readonly NewIp[]): Promise<AllocateOutcome>;
  get(accountId: number, id: number): Promise<IpRecord | null>;
  list(accountId: number, query: ListQuery): Promise<IpRecord[]>;
  /** The account's IPs among the given canonical addresses, ordered by id. */
  findByAddresses(accountId: number, addresses: readonly string[]): Promise<IpRecord[]>;
  update(accountId: number, id: number, patch: IpPatch): Promise<IpRecord | null>;
  delete(accountId: number, id: number): Promise<Outcome<IpRecord, 'not-found' | 'in-pool'>>;
}

/** TPSP kinds of the spec (the integer `type` of a third-party sending provider). */
export const TpspKind = {
  CloudBulk: 0,
  HostedFirst: 1,
  HostedSecond: 2,
  CustomSmtp: 3,
  Transactional: 4,
  WebmailRelay: 5,
} as const;
/** 0 to 5, see {@link TpspKind}. */
export type TpspKind = (typeof TpspKind)[keyof typeof TpspKind];

/** How a connection to a TPSP's SMTP endpoint is secured. */
export type TpspSecurity = 'tls' | 'starttls' | 'none';

/** A third-party sending provider the account relays through (an SMTP smart host). */
export interface TpspRecord {
  id: number;
  accountId: number;
  /** Display name, unique within the account compared case-insensitively. */
  name: string;
  kind: TpspKind;
  host: string;
  port: number;
  security: TpspSecurity;
  username: string;
  /** The SMTP password encrypted at rest (`SecretBox.encrypt`), or `''` when there is none. */
  passwordSealed: string;
  created: EpochNs;
  updated: EpochNs;
}

/** What {@link TpspStore.create} needs. */
export type NewTpsp = Omit<TpspRecord, 'id' | 'updated'>;

/** The fields {@link TpspStore.update} can change. */
export type TpspPatch = Partial<
  Pick<TpspRecord, 'name' | 'kind' | 'host' | 'port' | 'security' | 'username' | 'passwordSealed'>
> & {
  updated: EpochNs;
};

/**
 * Storage of the account's third-party sending providers, scoped by `accountId`.
 *
 * - `create` and `update` MUST answer `duplicate-name` when another TPSP of the account has the
 *   same name case-insensitively, also under concurrent writes.
 * - `list` MUST order by id and match `search` case-insensitively as a substring of the name.
 * - `delete` MUST refuse (`in-pool`) a TPSP that belongs to a pool, atomically with respect to
 *   pool writes of the same account.
 */
export interface TpspStore {
  create(input: NewTpsp): Promise<Outcome<TpspRecord, 'duplicate-name'>>;
  get(accountId: number, id: number): Promise<TpspRecord | null>;
  list(accountId: number, query: ListQuery): Promise<TpspRecord[]>;
  update(accountId: number, id: number, patch: TpspPatch): Promise<Outcome<TpspRecord, 'not-found' | 'duplicate-name'>>;
  delete(accountId: number, id: number): Promise<Outcome<TpspRecord, 'not-found' | 'in-pool'>>;
}

/** Values of a pool's `type`. */
export const IpPoolType = { Shared: 0, Dedicated: 1 } as const;
/** 0 = Shared (the default system pool), 1 = Dedicated (pools the account creates). */
export type IpPoolType = (typeof IpPoolType)[keyof typeof IpPoolType];

/** Name of the default system pool every account has. */
export const SYSTEM_POOL_NAME = 'Shared';

/** An IP pool without its members. */
export interface IpPoolRecord {
  id: number;
  accountId: number;
  /** Unique within the account compared case-insensitively. */
  name: string;
  type: IpPoolType;
  routingStrategy: number;
  /** The routing metadata exactly as given (a JSON object serialised into a string). */
  routingMetaData: string;
  shouldOverflow: boolean;
  /** The pool this one overflows to, or `null`. */
  overflowPoolId: number | null;
  /** Hours between warmup stages of the pool's warming IPs. */
  warmupInterval: number;
  created: EpochNs;
  updated: EpochNs;
}

/** A pool with its members and the name of its overflow pool, as the API shows it. */
export interface IpPoolDetail {
  pool: IpPoolRecord;
  /** Name of the overflow pool, `''` when there is none. */
  overflowPoolName: string;
  /** Member IPs ordered by id. */
  ips: IpRecord[];
  /** Member TPSPs ordered by id. */
  tpsps: TpspRecord[];
}

/** The whole writable state of a pool: {@link IpPoolStore.create} and {@link IpPoolStore.update} replace it. */
export interface IpPoolInput {
  name: string;
  routingStrategy: number;
  routingMetaData: string;
  shouldOverflow: boolean;
  overflowPoolId: number | null;
  warmupInterval: number;
  ipIds: readonly number[];
  tpspIds: readonly number[];
}

/** Why a pool write was refused. */
export type IpPoolWriteFailure =
  'duplicate-name' | 'unknown-ip' | 'unknown-tpsp' | 'ip-in-other-pool' | 'unknown-overflow-pool' | 'overflow-cycle';

/**
 * Storage of IP pools and their members, scoped by `accountId`.
 *
 * - `create` and `update` MUST be atomic: the pool row and its member lists are written together
 *   or not at all, and the checks below are made in the same transaction, serialised with every
 *   other pool, IP-delete and TPSP-delete write of the account:
 *   every IP and TPSP id belongs to the account (`unknown-ip`, `unknown-tpsp`); no IP is a member
 *   of another pool (`ip-in-other-pool`: an IP belongs to at most one pool); the overflow pool is
 *   another pool of the account (`unknown-overflow-pool`); following overflow links from it never
 *   reaches this pool (`overflow-cycle`); the name is free case-insensitively (`duplicate-name`).
 * - `update` replaces the member lists with the given ones.
 * - `ensureSystemPool` MUST be idempotent, also under concurrent calls: one type-0 pool per account.
 * - `delete` MUST refuse the system pool (`system-pool`) and a pool that another pool overflows to
 *   (`overflow-target`); it removes the memberships and never deletes IPs or TPSPs, and resets
 *   the `defaultIpPoolId` of sub-accounts that pointed at the pool to `null` (the system pool).
 * - `list` MUST order by id and match `search` case-insensitively as a substring of the name.
 */
export interface IpPoolStore {
  ensureSystemPool(accountId: number, created: EpochNs): Promise<IpPoolDetail>;
  create(accountId: number, input: IpPoolInput, created: EpochNs): Promise<Outcome<IpPoolDetail, IpPoolWriteFailure>>;
  get(accountId: number, id: number): Promise<IpPoolDetail | null>;
  /** The pool whose name equals `name` case-insensitively, or `null`. */
  findByName(accountId: number, name: string): Promise<IpPoolRecord | null>;
  list(accountId: number, query: ListQuery): Promise<IpPoolDetail[]>;
  update(
    accountId: number,
    id: number,
    input: IpPoolInput,
    updated: EpochNs,
  ): Promise<Outcome<IpPoolDetail, IpPoolWriteFailure | 'not-found'>>;
  delete(
    accountId: number,
    id: number,
  ): Promise<Outcome<IpPoolRecord, 'not-found' | 'system-pool' | 'overflow-target'>>;
}
