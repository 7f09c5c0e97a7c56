import type { DbFlag, DbId, DbInt, DbIntNull } from '../schema.js';

/** An address an account sends from. */
export interface IpsTable {
  id: DbId;
  account_id: DbInt;
  /** Canonical text form (lower-case), so it is also the search key. */
  public_ip: string;
  reverse_dns_hostname: string;
  type: DbInt;
  state: DbInt;
  auto_warmup_enabled: DbFlag;
  warmup_started_at: DbInt;
  created: DbInt;
  updated: DbInt;
}

/** A third-party sending provider (SMTP smart host) of an account. */
export interface TpspsTable {
  id: DbId;
  account_id: DbInt;
  name: string;
  /** `name` lower-cased by the application: the case-insensitive uniqueness and search key. */
  name_key: string;
  kind: DbInt;
  host: string;
  port: DbInt;
  security: string;
  username: string;
  password_sealed: string;
  created: DbInt;
  updated: DbInt;
}

/** An IP pool of an account. */
export interface IpPoolsTable {
  id: DbId;
  account_id: DbInt;
  name: string;
  /** `name` lower-cased by the application: the case-insensitive uniqueness and search key. */
  name_key: string;
  type: DbInt;
  routing_strategy: DbInt;
  routing_meta_data: string;
  should_overflow: DbFlag;
  overflow_pool_id: DbIntNull;
  warmup_interval: DbInt;
  created: DbInt;
  updated: DbInt;
}

/** Membership of an IP in a pool; an IP is in at most one pool (unique `ip_id`). */
export interface IpPoolIpsTable {
  pool_id: DbInt;
  ip_id: DbInt;
}

/** Membership of a TPSP in a pool; a TPSP may serve several pools. */
export interface IpPoolTpspsTable {
  pool_id: DbInt;
  tpsp_id: DbInt;
}

/** Tables of IPs, TPSPs and IP pools. */
export interface IpPoolTables {
  ips: IpsTable;
  tpsps: TpspsTable;
  ip_pools: IpPoolsTable;
  ip_pool_ips: IpPoolIpsTable;
  ip_pool_tpsps: IpPoolTpspsTable;
}
