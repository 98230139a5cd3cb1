import net from 'node:net';

/**
 * Which addresses and host names outbound calls may reach. Every block of
 * IANA's IPv4 and IPv6 Special-Purpose Address Registries is refused, the
 * globally reachable ones too (anycast relays, AS112, NAT64): a webhook or
 * connector has no business there, and a blanket rule leaves nothing to
 * argue about. IPv6 outside 2000::/3 (the only block IANA allocates as
 * global unicast) is refused as a whole, which covers every deprecated form
 * (IPv4-compatible, site-local) without listing it. Forms that embed an
 * IPv4 address (mapped, compatible, SIIT, NAT64, 6to4, Teredo) have that
 * address extracted and checked as well, so the reason names what the
 * address really points at.
 */

type Block = readonly [cidr: string, name: string];

/** IANA IPv4 Special-Purpose Address Registry, plus multicast (RFC 5771), which is no unicast target either. */
const IPV4_BLOCKS: readonly Block[] = [
  ['0.0.0.0/8', 'this network'],
  ['10.0.0.0/8', 'private use'],
  ['100.64.0.0/10', 'shared address space (CGNAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private use'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation (TEST-NET-1)'],
  ['192.31.196.0/24', 'AS112-v4'],
  ['192.52.193.0/24', 'AMT'],
  ['192.88.99.0/24', '6to4 relay anycast (deprecated)'],
  ['192.168.0.0/16', 'private use'],
  ['192.175.48.0/24', 'AS112 direct delegation'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'documentation (TEST-NET-3)'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'limited broadcast'],
  ['240.0.0.0/4', 'reserved'],
];

/**
 * IANA IPv6 Special-Purpose Address Registry (more specific blocks first, so
 * the reason names the precise one), plus multicast and the deprecated
 * site-local block. Those outside 2000::/3 would be refused without an entry;
 * theirs only make the reason readable.
 */
const IPV6_BLOCKS: readonly Block[] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::ffff:0:0/96', 'IPv4-mapped'],
  ['::ffff:0:0:0/96', 'IPv4-translated (SIIT)'],
  ['::/96', 'IPv4-compatible (deprecated)'],
  ['64:ff9b::/96', 'NAT64 well-known prefix'],
  ['64:ff9b:1::/48', 'NAT64 local-use prefix'],
  ['100::/64', 'discard-only'],
  ['100:0:0:1::/64', 'dummy prefix'],
  ['2001::/32', 'Teredo'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:db8::/32', 'documentation'],
  ['2001::/23', 'IETF protocol assignments'],
  ['2002::/16', '6to4'],
  ['2620:4f:8000::/48', 'AS112 direct delegation'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segment routing SIDs'],
  ['fc00::/7', 'unique local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local (deprecated)'],
  ['ff00::/8', 'multicast'],
];

function ipv4ToInt(address: string): number {
  return address.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function intToIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');
}

/** An IPv6 address (already validated by net.isIPv6, zone id removed) as a 128-bit integer. */
function ipv6ToBigInt(address: string): bigint {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4ToInt(dotted[1]!);
    text = `${text.slice(0, dotted.index)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

interface Range<T> {
  base: T;
  bits: number;
  name: string;
}

const V4: Range<number>[] = IPV4_BLOCKS.map(([cidr, name]) => {
  const [base, bits] = cidr.split('/') as [string, string];
  return { base: ipv4ToInt(base), bits: Number(bits), name };
});
const V6: Range<bigint>[] = IPV6_BLOCKS.map(([cidr, name]) => {
  const [base, bits] = cidr.split('/') as [string, string];
  return { base: ipv6ToBigInt(base), bits: Number(bits), name };
});
const V6_BY_CIDR = new Map(IPV6_BLOCKS.map(([cidr], i) => [cidr, V6[i]!]));

function inV4(n: number, r: Range<number>): boolean {
  // Division instead of shifts: JavaScript shifts by 32 wrap around.
  const size = 2 ** (32 - r.bits);
  return Math.floor(n / size) === Math.floor(r.base / size);
}

function inV6(n: bigint, r: Range<bigint>): boolean {
  const shift = BigInt(128 - r.bits);
  return n >> shift === r.base >> shift;
}

const low32 = (n: bigint) => Number(n & 0xffffffffn);

/** RFC 6052 address layout for a NAT64 prefix of `len` bits: the IPv4 bits follow the prefix, skipping bits 64–71. */
function rfc6052(n: bigint, len: number): number {
  if (len === 96) return low32(n);
  const bits = Array.from({ length: 40 }, (_, i) => len + i)
    .filter((b) => b < 64 || b > 71)
    .slice(0, 32);
  return bits.reduce((acc, b) => acc * 2 + Number((n >> BigInt(127 - b)) & 1n), 0);
}

/** The IPv4 addresses an IPv6 address carries, with the form that carries them. */
function embeddedIpv4(n: bigint): Array<{ form: string; v4: number }> {
  const found: Array<{ form: string; v4: number }> = [];
  const within = (cidr: string) => inV6(n, V6_BY_CIDR.get(cidr)!);
  if (within('::ffff:0:0/96')) found.push({ form: 'IPv4-mapped', v4: low32(n) });
  else if (within('::ffff:0:0:0/96')) found.push({ form: 'SIIT', v4: low32(n) });
  else if (within('::/96') && n > 1n) found.push({ form: 'IPv4-compatible', v4: low32(n) });
  if (within('64:ff9b::/96')) found.push({ form: 'NAT64', v4: low32(n) });
  // The local-use prefix may be any length from /48 to /96 inside 64:ff9b:1::/48; check each layout.
  if (within('64:ff9b:1::/48'))
    for (const len of [96, 64, 56, 48]) found.push({ form: 'NAT64 local-use', v4: rfc6052(n, len) });
  if (within('2002::/16')) found.push({ form: '6to4', v4: Number((n >> 80n) & 0xffffffffn) });
  if (within('2001::/32')) {
    found.push({ form: 'Teredo server', v4: Number((n >> 64n) & 0xffffffffn) });
    found.push({ form: 'Teredo client', v4: ~low32(n) >>> 0 });
  }
  return found;
}

/** Whether an outbound call may reach `address`, and if not, which special-purpose block it is in. */
export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

/**
 * Classifies an IP address (IPv4, IPv6, bracketed or with a zone id).
 * Anything that is not an IP address is refused: callers resolve names first.
 */
export function classifyAddress(raw: string): AddressVerdict {
  const address = raw.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (net.isIPv4(address)) {
    const hit = V4.find((r) => inV4(ipv4ToInt(address), r));
    return hit ? { allowed: false, reason: hit.name } : { allowed: true };
  }
  if (!net.isIPv6(address)) return { allowed: false, reason: 'not an IP address' };
  const n = ipv6ToBigInt(address);
  const reasons: string[] = [];
  const hit = V6.find((r) => inV6(n, r));
  if (hit) reasons.push(hit.name);
  else if (n >> 125n !== 1n) reasons.push('outside global unicast (2000::/3)');
  const forms = new Set<string>();
  for (const { form, v4 } of embeddedIpv4(n)) {
    const inner = classifyAddress(intToIpv4(v4));
    if (inner.allowed || forms.has(form)) continue;
    forms.add(form);
    reasons.push(`${form} embeds ${intToIpv4(v4)} (${inner.reason})`);
  }
  return reasons.length > 0 ? { allowed: false, reason: reasons.join('; ') } : { allowed: true };
}

/** A host as DNS and the checks see it: lower case, no brackets, no trailing dots (`localhost.` is `localhost`). */
export function normalizeHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '');
}

/**
 * Names that resolve on the local machine or network by convention, whatever
 * public DNS says: `localhost` (RFC 6761), mDNS `.local` (RFC 6762),
 * `.home.arpa` (RFC 8375), `.internal` (ICANN's private-use TLD) and the
 * `localhost.localdomain` family many /etc/hosts files carry.
 */
const LOCAL_NAMES = ['localhost', 'local', 'localdomain', 'internal', 'home.arpa'];

/** Why a host (name or address literal) is refused before any lookup; null when only DNS can tell. */
export function refusedHost(host: string): string | null {
  const h = normalizeHost(host);
  if (net.isIP(h.replace(/%.*$/, ''))) {
    const verdict = classifyAddress(h);
    return verdict.allowed ? null : verdict.reason;
  }
  const local = LOCAL_NAMES.find((n) => h === n || h.endsWith(`.${n}`));
  return local ? `a local name (.${local})` : null;
}
