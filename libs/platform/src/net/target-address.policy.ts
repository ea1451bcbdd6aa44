import { BlockList, isIP } from 'node:net';
import { tunnelledIpv4 } from './tunnelled-address';

/**
 * Which addresses an outbound request to a URL someone else chose (a webhook target, an upstream)
 * may reach. Link-local, cloud metadata, loopback, private, CGNAT, multicast and unspecified
 * ranges are refused unless an operator allows a CIDR or host explicitly: otherwise anyone able to
 * register a URL could make the estate probe its own network (SSRF).
 */
export interface TargetAddressPolicy {
  /** Whether a literal IP address may be reached. */
  admitsAddress(address: string): boolean;
  /** Whether a host name is allowed by name, whatever it resolves to. */
  admitsHostName(host: string): boolean;
}

const FORBIDDEN_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const FORBIDDEN_V6: Array<[string, number]> = [
  // ::/96 holds the unspecified and loopback addresses and the deprecated IPv4-compatible ones (::a.b.c.d).
  ['::', 96], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['fec0::', 10],
  // The AWS IPv6 metadata address sits in fd00::/8 (covered above). Translators may map any v4
  // address: NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48) and SIIT (::ffff:0:a.b.c.d).
  ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['::ffff:0:0:0', 96],
];

/** `::ffff:a.b.c.d` is the IPv4 address a.b.c.d for the socket: judge it as one (6to4 and Teredo: tunnelled-address.ts). */
function unmapped(address: string): string {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return match ? match[1] : address;
}

export type AllowEntry = { cidr: [string, number, 'ipv4' | 'ipv6'] } | { host: string };

/** Parses `ESTATE_*_ALLOW`-style entries: CIDRs (`127.0.0.0/8`, `::1/128`), addresses or host names. */
export function parseAllowEntry(entry: string): AllowEntry | { error: string } {
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address);
  if (family !== 0) {
    const max = family === 4 ? 32 : 128;
    const prefix = bits === undefined ? max : Number(bits);
    if (extra !== undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > max) return { error: `"${entry}" is not a CIDR` };
    return { cidr: [address, prefix, family === 4 ? 'ipv4' : 'ipv6'] };
  }
  if (bits === undefined && /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(entry)) return { host: entry.toLowerCase() };
  return { error: `"${entry}" is neither a CIDR, an address nor a host name` };
}

export function targetAddressPolicy(allow: AllowEntry[]): TargetAddressPolicy {
  const forbidden = new BlockList();
  for (const [net, prefix] of FORBIDDEN_V4) forbidden.addSubnet(net, prefix, 'ipv4');
  for (const [net, prefix] of FORBIDDEN_V6) forbidden.addSubnet(net, prefix, 'ipv6');
  const allowed = new BlockList();
  const hosts = new Set<string>();
  for (const entry of allow) {
    if ('host' in entry) hosts.add(entry.host);
    else allowed.addSubnet(...entry.cidr);
  }
  const judge = (raw: string) => {
    const address = unmapped(raw);
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (isIP(address) === 0) return false;
    return allowed.check(address, family) || !forbidden.check(address, family);
  };
  return {
    // A 6to4 or Teredo address is also judged by the IPv4 it carries: otherwise `2002:7f00:1::`
    // would reach 127.0.0.1 through a relay although `::ffff:127.0.0.1` is refused.
    admitsAddress(raw) {
      const carried = tunnelledIpv4(raw);
      return judge(raw) && (carried === undefined || judge(carried));
    },
    admitsHostName: (host) => hosts.has(host.toLowerCase()),
  };
}

/** A URL's host without IPv6 brackets. */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}
