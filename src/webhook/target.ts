import { classifyAddress, type AddressCategory } from '../model/address-class.js';
import { parseWebhookUrl } from './url.js';

/**
 * What a webhook target's host is, as far as can be told without DNS:
 * - `public`: an IP literal outside every range below;
 * - `hostname`: a name other than `localhost`; only its resolved addresses can be judged
 *   (delivery resolves it and applies `classifyAddress` to every address);
 * - `loopback`: 127.0.0.0/8, ::1, `localhost` and `*.localhost`;
 * - `private`: 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT), fc00::/7 (unique local);
 * - `link-local`: 169.254/16 (cloud metadata services live there), fe80::/10;
 * - `unspecified`: 0.0.0.0 (and 0/8), `::`: connecting to them reaches the local host on Linux;
 * - `reserved`: multicast, broadcast and the IETF/documentation reserved blocks;
 * - `invalid`: not an http(s) URL with a host.
 */
export type TargetCategory = AddressCategory | 'hostname';

/** Options of {@link checkWebhookTarget}; `allowPrivateTargets` is the `webhooks.allowPrivateTargets` setting. */
export interface WebhookTargetOptions {
  /** Allow loopback, private, link-local, unspecified and reserved targets (development, tests). Default `false`. */
  allowPrivateTargets?: boolean;
}

/** The verdict of {@link checkWebhookTarget}. */
export interface WebhookTargetCheck {
  /** Whether a delivery to this target may go ahead (for `hostname`: pending the resolved addresses). */
  allowed: boolean;
  category: TargetCategory;
  /** The host as parsed (IPv6 without brackets, no trailing dot), or `''` when invalid. */
  host: string;
}

/**
 * Classifies the host of a webhook URL from its literal text and says whether delivery may go to it.
 * Only `public` and `hostname` targets are allowed unless `allowPrivateTargets` is set. The WHATWG
 * parser has already turned alternative IPv4 spellings (`2130706433`, `0x7f.1`) into dotted quads.
 *
 * @example
 * checkWebhookTarget('http://169.254.169.254/latest/meta-data', {});
 * // -> { allowed: false, category: 'link-local', host: '169.254.169.254' }
 */
export function checkWebhookTarget(url: string | URL, options: WebhookTargetOptions = {}): WebhookTargetCheck {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return { allowed: false, category: 'invalid', host: '' };
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
    return { allowed: false, category: 'invalid', host: '' };
  }
  const host = parsed.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  let category: TargetCategory = classifyAddress(host);
  if (category === 'invalid') {
    category = host === 'localhost' || host.endsWith('.localhost') ? 'loopback' : 'hostname';
  }
  const allowed = category === 'public' || category === 'hostname' || options.allowPrivateTargets === true;
  return { allowed, category, host };
}

/**
 * A URL given for mailplane to POST to (an alert rule's Slack URL, an inbound route's webhook), parsed
 * and checked as webhook URLs are: the normalised URL (`null` when none was given), or why it is refused.
 */
export function checkPostTargetUrl(
  raw: string | null,
  options: WebhookTargetOptions,
): { ok: true; url: string | null } | { ok: false; message: string } {
  if (raw === null || raw === '') return { ok: true, url: null };
  const parsed = parseWebhookUrl(raw);
  if (!parsed.ok) return { ok: false, message: parsed.message };
  const target = checkWebhookTarget(parsed.url, options);
  if (!target.allowed)
    return { ok: false, message: `must reach a public address (${target.host} is ${target.category})` };
  return { ok: true, url: parsed.url };
}
