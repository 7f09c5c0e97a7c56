// PLACEHOLDER: filled by the helper that owns this area; remove this comment.
/** Storage of ips. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface IpStore {}
/** Storage of tpsps. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface TpspStore {}
/** Storage of ipPools. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface IpPoolStore {}
