/**
 * Where the DNS records a customer publishes for a sending domain point. The values are the
 * operator's: the hosts that receive bounces and serve tracking for this mailplane deployment.
 */
export interface DomainRecordsConfig {
  /** DKIM selector; the key is published at `<selector>._domainkey.<domain>`. */
  dkimSelector: string;
  /** Label of the Return-Path host under the sending domain (`<label>.<domain>`). */
  returnPathLabel: string;
  /** Host the Return-Path CNAME must point to (the bounce-processing host). */
  returnPathTarget: string;
  /** Label of the tracking host under the sending domain. */
  trackingLabel: string;
  /** Host the tracking CNAME must point to (serves opens, clicks, unsubscribes). */
  trackingTarget: string;
  /**
   * The SPF mechanism target of this deployment. The operator publishes
   * `v=spf1 include:<spfInclude> ~all` as a TXT record at {@link returnPathTarget}; receivers reach
   * it through the customer's Return-Path CNAME, and SPF checks look for `include:<spfInclude>`.
   */
  spfInclude: string;
}

/** Defaults for a local deployment; production operators set their own hosts. */
export const defaultDomainRecordsConfig: DomainRecordsConfig = {
  dkimSelector: 'mp1',
  returnPathLabel: 'mp-bounces',
  returnPathTarget: 'bounces.mailplane.localhost',
  trackingLabel: 'mp-track',
  trackingTarget: 'track.mailplane.localhost',
  spfInclude: 'spf.mailplane.localhost',
};

const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;

/**
 * Fills the unset fields of a partial configuration with {@link defaultDomainRecordsConfig}.
 * Throws on a label or host that DNS cannot carry: the mistake would otherwise surface only as
 * records no customer can publish.
 */
export function resolveDomainRecordsConfig(partial: Partial<DomainRecordsConfig> = {}): DomainRecordsConfig {
  const config = { ...defaultDomainRecordsConfig, ...partial };
  for (const key of ['dkimSelector', 'returnPathLabel', 'trackingLabel'] as const) {
    if (!DNS_LABEL.test(config[key])) throw new Error(`domains.${key} must be one DNS label, got "${config[key]}"`);
  }
  for (const key of ['returnPathTarget', 'trackingTarget', 'spfInclude'] as const) {
    if (!HOST_NAME.test(config[key])) throw new Error(`domains.${key} must be a host name, got "${config[key]}"`);
  }
  // Lower-cased like the domain names they are joined to, so published hosts compare exactly.
  return {
    ...config,
    dkimSelector: config.dkimSelector.toLowerCase(),
    returnPathLabel: config.returnPathLabel.toLowerCase(),
    trackingLabel: config.trackingLabel.toLowerCase(),
  };
}
