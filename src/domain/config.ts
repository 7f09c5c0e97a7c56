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
  /** SPF include published for the Return-Path domain. */
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

/** Fills the unset fields of a partial configuration with {@link defaultDomainRecordsConfig}. */
export function resolveDomainRecordsConfig(partial: Partial<DomainRecordsConfig> = {}): DomainRecordsConfig {
  return { ...defaultDomainRecordsConfig, ...partial };
}
