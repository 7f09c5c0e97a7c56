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
  /**
   * Days the previous DKIM key's record stays listed on the domain after a rotation switched
   * signing to the new key (mail signed just before the switch is still in transit and verified
   * later). Default 7; at least 1.
   */
  dkimRotationGraceDays: number;
  /**
   * Rotate every verified domain's DKIM key automatically when its key has signed this many days
   * (checked by the domain's daily DNS check). 0, the default, never rotates by itself. The new
   * key signs only once its customer has published its record.
   */
  dkimAutoRotateDays: number;
}

/** Defaults for a local deployment; production operators set their own hosts. */
export const defaultDomainRecordsConfig: DomainRecordsConfig = {
  dkimSelector: 'mp1',
  returnPathLabel: 'mp-bounces',
  returnPathTarget: 'bounces.mailplane.localhost',
  trackingLabel: 'mp-track',
  trackingTarget: 'track.mailplane.localhost',
  spfInclude: 'spf.mailplane.localhost',
  dkimRotationGraceDays: 7,
  dkimAutoRotateDays: 0,
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
  if (!Number.isInteger(config.dkimRotationGraceDays) || config.dkimRotationGraceDays < 1) {
    throw new Error(
      `domains.dkimRotationGraceDays must be a whole number of days >= 1, got ${config.dkimRotationGraceDays}`,
    );
  }
  if (!Number.isInteger(config.dkimAutoRotateDays) || config.dkimAutoRotateDays < 0) {
    throw new Error(
      `domains.dkimAutoRotateDays must be a whole number of days >= 0 (0: off), got ${config.dkimAutoRotateDays}`,
    );
  }
  // Lower-cased like the domain names they are joined to, so published hosts compare exactly.
  return {
    ...config,
    dkimSelector: config.dkimSelector.toLowerCase(),
    returnPathLabel: config.returnPathLabel.toLowerCase(),
    trackingLabel: config.trackingLabel.toLowerCase(),
  };
}
