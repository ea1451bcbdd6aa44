import { isIP } from 'node:net';

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a dotted IPv4 tail split in two). */
function hextets(address: string): number[] | undefined {
  const bare = address.replace(/%.*$/, '');
  if (isIP(bare) !== 6) return undefined;
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(bare);
  const text = dotted
    ? `${dotted[1]}${((Number(dotted[2]) << 8) | Number(dotted[3])).toString(16)}:${((Number(dotted[4]) << 8) | Number(dotted[5])).toString(16)}`
    : bare;
  const [head, tail] = text.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = groups(head);
  const back = groups(tail);
  return tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const ipv4 = (high: number, low: number): string => [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

/**
 * The IPv4 address an IPv6 transition address carries, where a packet to it ends up: 6to4
 * (2002::/16, the 32 bits after the prefix) or Teredo (2001:0::/32, the client in the last 32 bits,
 * each bit inverted). Undefined for any other address.
 */
export function tunnelledIpv4(address: string): string | undefined {
  const groups = hextets(address);
  if (!groups) return undefined;
  if (groups[0] === 0x2002) return ipv4(groups[1], groups[2]);
  if (groups[0] === 0x2001 && groups[1] === 0) return ipv4(groups[6] ^ 0xffff, groups[7] ^ 0xffff);
  return undefined;
}
