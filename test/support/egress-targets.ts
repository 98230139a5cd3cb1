/**
 * Every special-purpose form of an address (IANA's IPv4 and IPv6 registries,
 * the IPv6 forms that embed an IPv4 address) and every local name, written
 * as a URL host. Each one must be refused at registration and at connect
 * time; `port` lets the connect-time table aim them at a live local server,
 * so a form that slipped through would visibly reach it.
 */
export function refusedTargets(port: number): Array<[form: string, url: string]> {
  const at = (host: string) => `http://${host}:${port}/hook`;
  return [
    ['IPv4 loopback', at('127.0.0.1')],
    ['IPv4 loopback, hex integer (the URL parser normalises it)', at('0x7f000001')],
    ['IPv4 loopback, short form', at('127.1')],
    ['IPv4-mapped loopback', at('[::ffff:127.0.0.1]')],
    ['IPv4-compatible loopback', at('[::7f00:1]')],
    ['SIIT (IPv4-translated) loopback', at('[::ffff:0:7f00:1]')],
    ['NAT64 well-known prefix, loopback', at('[64:ff9b::7f00:1]')],
    ['NAT64 local-use prefix, loopback', at('[64:ff9b:1::7f00:1]')],
    ['NAT64 well-known prefix, public IPv4', at('[64:ff9b::5db8:d822]')],
    ['6to4 of loopback', at('[2002:7f00:1::]')],
    ['6to4 of a public IPv4', at('[2002:5db8:d822::1]')],
    ['Teredo (client 127.0.0.1)', at('[2001:0:4136:e378:8000:63bf:80ff:fffe]')],
    ['IPv6 loopback', at('[::1]')],
    ['IPv6 unspecified', at('[::]')],
    ['IPv4 this-network', at('0.0.0.0')],
    ['private use', at('10.1.2.3')],
    ['private use 172.16/12', at('172.31.255.1')],
    ['private use 192.168/16', at('192.168.0.1')],
    ['CGNAT', at('100.64.0.1')],
    ['link-local (cloud metadata)', at('169.254.169.254')],
    ['IETF protocol assignments', at('192.0.0.170')],
    ['documentation TEST-NET-1', at('192.0.2.10')],
    ['documentation TEST-NET-2', at('198.51.100.7')],
    ['documentation TEST-NET-3', at('203.0.113.9')],
    ['IPv6 documentation 2001:db8::/32', at('[2001:db8::1]')],
    ['IPv6 documentation 3fff::/20', at('[3fff::1]')],
    ['benchmarking 198.18/15', at('198.19.0.1')],
    ['IPv6 benchmarking', at('[2001:2::1]')],
    ['AS112', at('192.31.196.1')],
    ['AMT', at('192.52.193.1')],
    ['deprecated 6to4 relay anycast', at('192.88.99.1')],
    ['reserved 240/4', at('240.0.0.1')],
    ['limited broadcast', at('255.255.255.255')],
    ['multicast', at('224.0.0.1')],
    ['IPv6 discard-only', at('[100::1]')],
    ['IPv6 ORCHIDv2', at('[2001:20::1]')],
    ['IPv6 AS112 direct delegation', at('[2620:4f:8000::1]')],
    ['IPv6 segment routing SIDs', at('[5f00::1]')],
    ['unique local', at('[fd00::1]')],
    ['IPv6 link-local', at('[fe80::1]')],
    ['deprecated site-local', at('[fec0::1]')],
    ['IPv6 multicast', at('[ff02::1]')],
    ['localhost', at('localhost')],
    ['localhost with a trailing dot', at('localhost.')],
    ['LOCALHOST, upper case, two trailing dots', at('LOCALHOST..')],
    ['a .localhost name with a trailing dot', at('api.localhost.')],
    ['localhost.localdomain', at('localhost.localdomain')],
    ['mDNS .local', at('printer.local')],
    ['.internal', at('db.internal.')],
    ['.home.arpa', at('router.home.arpa')],
  ];
}

/** The one reason stored and returned for every refused target, whatever made it refused. */
export const NEUTRAL_REFUSAL = /^endpoint host did not resolve to an allowed address$/;
