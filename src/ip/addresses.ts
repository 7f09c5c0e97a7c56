import { BlockList, isIP } from 'node:net';

/** Addresses that can never be a source address: unspecified, broadcast and multicast. */
const unusable = new BlockList();
unusable.addAddress('0.0.0.0', 'ipv4');
unusable.addAddress('255.255.255.255', 'ipv4');
unusable.addSubnet('224.0.0.0', 4, 'ipv4');
unusable.addAddress('::', 'ipv6');
unusable.addSubnet('ff00::', 8, 'ipv6');

const IPV4_MAPPED = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/**
 * The canonical text of an IP address, or `null` when `raw` is not one mailplane can send from.
 * IPv4 stays dotted-quad (node:net refuses leading zeros and short forms); IPv6 is compressed and
 * lower-cased as RFC 5952 says (the WHATWG URL serialiser implements exactly that), and an
 * IPv4-mapped IPv6 address becomes the IPv4 address it maps, so one address has one spelling.
 * Zone ids (`fe80::1%eth0`) are refused: they name an interface, not an address.
 */
export function canonicalIp(raw: string): string | null {
  const version = isIP(raw);
  if (version === 0 || raw.includes('%')) return null;
  let text = raw;
  if (version === 6) {
    text = new URL(`http://[${raw}]`).hostname.slice(1, -1);
    const mapped = IPV4_MAPPED.exec(text);
    if (mapped) {
      const high = parseInt(mapped[1]!, 16);
      const low = parseInt(mapped[2]!, 16);
      text = [high >> 8, high & 255, low >> 8, low & 255].join('.');
    }
  }
  return unusable.check(text, isIP(text) === 4 ? 'ipv4' : 'ipv6') ? null : text;
}
