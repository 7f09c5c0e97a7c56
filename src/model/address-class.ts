/**
 * What an IP address is, from its value alone: where a connection to it would go. Webhook
 * targets (src/webhook/target.ts, src/webhook/post.ts) are refused by it, and the SMTP listeners
 * tell local peers from the rest by it (src/smtp/connection-guard.ts).
 */
import { isIPv4, isIPv6 } from 'node:net';

/**
 * The class of an IP address:
 * - `public`: outside every range below;
 * - `loopback`: 127.0.0.0/8, ::1;
 * - `private`: 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT), fc00::/7 (unique local);
 * - `link-local`: 169.254/16 (cloud metadata services live there), fe80::/10;
 * - `unspecified`: 0.0.0.0 (and 0/8), `::`: connecting to them reaches the local host on Linux;
 * - `reserved`: multicast, broadcast and the IETF/documentation reserved blocks;
 * - `invalid`: not an IP address.
 * Addresses that embed an IPv4 address (mapped, compatible, NAT64, 6to4) are judged by it.
 */
export type AddressCategory = 'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'reserved' | 'invalid';

type Range = readonly [base: bigint, prefix: number, category: Exclude<AddressCategory, 'public' | 'invalid'>];

const v4 = (dotted: string): bigint => dotted.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);

// Most specific first is not needed: the ranges below do not overlap.
const IPV4_RANGES: readonly Range[] = [
  [v4('0.0.0.0'), 8, 'unspecified'],
  [v4('10.0.0.0'), 8, 'private'],
  [v4('100.64.0.0'), 10, 'private'],
  [v4('127.0.0.0'), 8, 'loopback'],
  [v4('169.254.0.0'), 16, 'link-local'],
  [v4('172.16.0.0'), 12, 'private'],
  [v4('192.0.0.0'), 24, 'reserved'],
  [v4('192.0.2.0'), 24, 'reserved'],
  [v4('192.168.0.0'), 16, 'private'],
  [v4('198.18.0.0'), 15, 'reserved'],
  [v4('198.51.100.0'), 24, 'reserved'],
  [v4('203.0.113.0'), 24, 'reserved'],
  [v4('224.0.0.0'), 4, 'reserved'],
  [v4('240.0.0.0'), 4, 'reserved'],
];

const inRange = (value: bigint, bits: number, base: bigint, prefix: number) =>
  value >> BigInt(bits - prefix) === base >> BigInt(bits - prefix);

function classifyV4(value: bigint): AddressCategory {
  for (const [base, prefix, category] of IPV4_RANGES) if (inRange(value, 32, base, prefix)) return category;
  return 'public';
}

/** An IPv6 literal (already known valid) as a 128-bit integer; an embedded dotted quad is allowed. */
function parseV6(text: string): bigint {
  let address = text.split('%')[0]!;
  const lastColon = address.lastIndexOf(':');
  const tail = address.slice(lastColon + 1);
  if (tail.includes('.')) {
    const quad = v4(tail);
    address = `${address.slice(0, lastColon + 1)}${(quad >> 16n).toString(16)}:${(quad & 0xffffn).toString(16)}`;
  }
  const [head = '', rest] = address.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups = [...headGroups, ...Array<string>(8 - headGroups.length - restGroups.length).fill('0'), ...restGroups];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n);
}

function classifyV6(value: bigint): AddressCategory {
  if (value === 0n) return 'unspecified';
  if (value === 1n) return 'loopback';
  const top = (prefix: number) => value >> BigInt(128 - prefix);
  // Addresses that carry an IPv4 address reach that address: judge the embedded one.
  // ::ffff:0:0/96 (mapped), ::/96 (deprecated compatible), 64:ff9b::/96 (NAT64).
  if (top(96) === 0xffffn || top(96) === 0n || top(96) === 0x64ff9b0000000000000000n) {
    return classifyV4(value & 0xffffffffn);
  }
  // 2002::/16 (6to4) embeds the IPv4 address in bits 16-48.
  if (top(16) === 0x2002n) return classifyV4((value >> 80n) & 0xffffffffn);
  if (top(7) === 0x7en) return 'private';
  if (top(10) === 0x3fan) return 'link-local';
  if (top(8) === 0xffn) return 'reserved';
  if (top(32) === 0x20010db8n) return 'reserved';
  return 'public';
}

/**
 * Classifies one IP address (dotted IPv4 or IPv6, brackets optional); anything else is `invalid`.
 * The webhook delivery worker applies it to every address a target's hostname resolves to, so a
 * public name that points at 127.0.0.1 is caught too; the SMTP listeners to their peers.
 */
export function classifyAddress(address: string): AddressCategory {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return classifyV4(v4(bare));
  if (isIPv6(bare)) return classifyV6(parseV6(bare));
  return 'invalid';
}
