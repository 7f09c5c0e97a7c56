import { normalizeName } from '../dns/names.js';

/** Receiving mail (the `inbound` option of `createMailplane`; docs/inbound.md). */
export interface InboundConfig {
  /**
   * The host name of the inbound MX listener: the value of the MX record a receiving domain
   * publishes. `null` (the default): receiving cannot be enabled on any domain.
   */
  hostname: string | null;
}

/** Fills the unset fields of the `inbound` option (already checked by src/options.ts). */
export function resolveInboundConfig(partial: Partial<InboundConfig> = {}): InboundConfig {
  return { hostname: partial.hostname ? normalizeName(partial.hostname) : null };
}
