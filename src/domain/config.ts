import { withDefaults } from '../model/defaults.js';

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
  /**
   * RSA modulus size of the DKIM keys generated for new domains and rotations: 2048 (the default, what
   * RFC 8301 recommends) or 1024 (the least it allows; what some older DNS hosts' record editors still
   * require, as Mailgun and Google Workspace offer). Keys made before a change keep their size.
   */
  dkimKeyBits: DkimKeyBits;
}

/** The DKIM key sizes mailplane generates (bits). */
export const DKIM_KEY_SIZES = [1024, 2048] as const;
/** One of {@link DKIM_KEY_SIZES}. */
export type DkimKeyBits = (typeof DKIM_KEY_SIZES)[number];

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
  dkimKeyBits: 2048,
};

/** One DNS label (the selector, the labels under a sending domain); `createMailplane` checks the options with it. */
export const DNS_LABEL_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
/** A host name of at least two labels (the record targets); `createMailplane` checks the options with it. */
export const HOST_NAME_PATTERN =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;

/**
 * Fills the unset fields of a partial configuration with {@link defaultDomainRecordsConfig}, the
 * labels lower-cased. The values are checked before, with the other options of `createMailplane`
 * (src/options.ts).
 */
export function resolveDomainRecordsConfig(partial: Partial<DomainRecordsConfig> = {}): DomainRecordsConfig {
  const config = withDefaults(defaultDomainRecordsConfig, partial);
  // Lower-cased like the domain names they are joined to, so published hosts compare exactly.
  return {
    ...config,
    dkimSelector: config.dkimSelector.toLowerCase(),
    returnPathLabel: config.returnPathLabel.toLowerCase(),
    trackingLabel: config.trackingLabel.toLowerCase(),
  };
}
