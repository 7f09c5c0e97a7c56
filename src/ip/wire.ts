import type { IpPoolDetail, IpPoolRecord, IpRecord, TpspRecord } from '../store/index.js';

/**
 * An IP as the API shows it: the spec's IP fields. The spec spells the address `publicIp` and the
 * host name `reverseDnsHostname`; the reference document says `publicIP` and `reverseDNSHostname`.
 */
export function ipToWire(ip: IpRecord) {
  return {
    id: ip.id,
    publicIp: ip.publicIp,
    reverseDnsHostname: ip.reverseDnsHostname,
    type: ip.type,
    state: ip.state,
    autoWarmupEnabled: ip.autoWarmupEnabled,
    created: ip.created,
  };
}

/**
 * A TPSP as the API shows it: the reference's `ThirdPartySendingProvider` fields (`endpoint` is the
 * host, `key` the user name, `secret` always empty) plus the connection settings. The password is
 * never returned: `hasPassword` says whether one is stored.
 */
export function tpspToWire(tpsp: TpspRecord) {
  return {
    id: tpsp.id,
    name: tpsp.name,
    type: tpsp.kind,
    host: tpsp.host,
    port: tpsp.port,
    security: tpsp.security,
    username: tpsp.username,
    hasPassword: tpsp.passwordSealed !== '',
    domain: '',
    endpoint: tpsp.host,
    key: tpsp.username,
    secret: '',
    oauthToken: '',
    retryTime: 0,
    created: tpsp.created,
    updated: tpsp.updated,
  };
}

/** A pool as the API shows it: the spec's IP pool (the reference's `IPPool`). */
export function poolToWire(detail: IpPoolDetail) {
  const { pool } = detail;
  return {
    id: pool.id,
    name: pool.name,
    type: pool.type,
    routingStrategy: pool.routingStrategy,
    routingMetaData: pool.routingMetaData,
    shouldOverflow: pool.shouldOverflow,
    overflowPoolName: detail.overflowPoolName,
    warmupInterval: pool.warmupInterval,
    ips: detail.ips.map(ipToWire),
    thirdPartySendingProviders: detail.tpsps.map(tpspToWire),
    created: pool.created,
  };
}

/** The `IPPoolDeleteResponse` of a deleted pool. */
export function poolDeletedToWire(pool: IpPoolRecord) {
  return { id: pool.id, message: `IPPool (${pool.name}) has been deleted successfully` };
}
