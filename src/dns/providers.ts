import type { DnsResolver } from './resolver.js';
import { normalizeName } from './names.js';

/**
 * Name-server host patterns of DNS hosting providers, matched against the NS records of a
 * domain's zone. Patterns end at a registrable domain, so `kim.ns.cloudflare.com` matches
 * `cloudflare.com`. The first matching entry names the provider.
 */
export const DNS_PROVIDERS: readonly { name: string; pattern: RegExp }[] = [
  { name: 'Cloudflare', pattern: /\.ns\.cloudflare\.com$/ },
  { name: 'Amazon Route 53', pattern: /\.awsdns-\d+\.(com|net|org|co\.uk)$/ },
  { name: 'GoDaddy', pattern: /\.domaincontrol\.com$/ },
  { name: 'Google Cloud DNS', pattern: /^ns-cloud-[a-z]\d+\.googledomains\.com$/ },
  { name: 'Squarespace (Google Domains)', pattern: /(^ns\d+\.googledomains\.com$|\.squarespacedns\.com$)/ },
  { name: 'Microsoft Azure DNS', pattern: /\.azure-dns\.(com|net|org|info)$/ },
  { name: 'Namecheap', pattern: /\.(registrar-servers\.com|namecheaphosting\.com)$/ },
  { name: 'DigitalOcean', pattern: /\.digitalocean\.com$/ },
  { name: 'Hetzner', pattern: /\.(ns\.hetzner\.(com|de)|your-server\.de|second-ns\.(com|de))$/ },
  { name: 'OVHcloud', pattern: /\.(ovh\.net|ovh\.ca|anycast\.me)$/ },
  { name: 'Gandi', pattern: /\.gandi\.net$/ },
  { name: 'Linode (Akamai)', pattern: /\.linode\.com$/ },
  { name: 'Vercel', pattern: /\.vercel-dns\.com$/ },
  { name: 'NS1', pattern: /\.nsone\.net$/ },
  { name: 'DNSimple', pattern: /\.dnsimple(-edge)?\.(com|net|org)$/ },
  { name: 'Porkbun', pattern: /\.porkbun\.com$/ },
  { name: 'Hover', pattern: /\.hover\.com$/ },
  { name: 'Wix', pattern: /\.wixdns\.net$/ },
  { name: 'IONOS', pattern: /\.ui-dns\.(com|de|org|biz)$/ },
  { name: 'Name.com', pattern: /\.name\.com$/ },
  { name: 'Dynadot', pattern: /\.dynadot\.com$/ },
  { name: 'NameSilo', pattern: /\.dnsowl\.com$/ },
  { name: 'Network Solutions', pattern: /\.worldnic\.com$/ },
  { name: 'Bluehost', pattern: /\.bluehost\.com$/ },
  { name: 'HostGator', pattern: /\.hostgator\.com$/ },
  { name: 'DreamHost', pattern: /\.dreamhost\.com$/ },
  { name: 'Vultr', pattern: /\.vultr\.com$/ },
  { name: 'Netlify', pattern: /\.netlify\.com$/ },
  { name: 'Akamai Edge DNS', pattern: /\.akam\.net$/ },
  { name: 'UltraDNS', pattern: /\.ultradns\.(com|net|org|biz|info|co\.uk)$/ },
  { name: 'Oracle Cloud DNS (Dyn)', pattern: /\.(dynect\.net|oraclecloud\.net)$/ },
  { name: 'ClouDNS', pattern: /\.cloudns\.net$/ },
  { name: 'Alibaba Cloud DNS', pattern: /\.(hichina\.com|alidns\.com)$/ },
  { name: 'DNSPod (Tencent Cloud)', pattern: /\.dnspod\.(net|com)$/ },
  { name: 'Yandex', pattern: /\.yandex\.(net|ru)$/ },
  { name: 'Zoho', pattern: /\.zoho\.com$/ },
  { name: 'Constellix', pattern: /\.constellix\.(com|net)$/ },
  { name: 'Strato', pattern: /\.stratoserver\.net$/ },
  { name: 'one.com', pattern: /\.one\.com$/ },
];

/**
 * Names the DNS provider from a zone's name servers: the provider that serves most of them,
 * or `''` when none is recognised.
 */
export function providerFromNameServers(nameServers: readonly string[]): string {
  const votes = new Map<string, number>();
  for (const host of nameServers) {
    const normalized = normalizeName(host);
    const provider = DNS_PROVIDERS.find((entry) => entry.pattern.test(normalized));
    if (provider) votes.set(provider.name, (votes.get(provider.name) ?? 0) + 1);
  }
  let best = '';
  let bestVotes = 0;
  for (const [name, count] of votes) {
    if (count > bestVotes) [best, bestVotes] = [name, count];
  }
  return best;
}

/**
 * Finds the DNS provider hosting `domain`: the NS records of the domain, or of its closest
 * parent that has some (a subdomain is usually served by its parent's zone). Gives `''` when the
 * lookup fails or the servers are not recognised; it never throws.
 */
export async function detectDnsProvider(
  resolver: DnsResolver,
  domain: string,
  options: { fresh?: boolean } = {},
): Promise<string> {
  const labels = normalizeName(domain).split('.');
  // Stop above the top-level domain; four steps reach a registrable domain from any usual subdomain.
  for (let start = 0; start < labels.length - 1 && start < 4; start++) {
    const result = await resolver.resolveNs(labels.slice(start).join('.'), options);
    if (result.ok) return providerFromNameServers(result.records);
    if (result.reason !== 'nodata' && result.reason !== 'nxdomain') return '';
  }
  return '';
}
