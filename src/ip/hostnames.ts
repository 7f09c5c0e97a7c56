import { isIP } from 'node:net';

const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** True when `value` (already lower-cased) is a DNS host name: letters, digits and hyphens in dot-separated labels. */
export function isHostname(value: string): boolean {
  return HOSTNAME.test(value);
}

/** True when `value` is a host an SMTP client can connect to: a host name or an IP literal. */
export function isHost(value: string): boolean {
  return isIP(value) !== 0 || isHostname(value);
}
