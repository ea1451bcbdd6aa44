import { parseAllowEntry, targetAddressPolicy, type AllowEntry } from './target-address.policy';

const policy = (...entries: string[]) => targetAddressPolicy(entries.map((e) => parseAllowEntry(e) as AllowEntry));

describe('target address policy', () => {
  it.each(['169.254.169.254', '127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '0.0.0.0', '::1', 'fe80::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '100.100.100.200', '::127.0.0.1', '::a9fe:a9fe', '::ffff:0:7f00:1', '64:ff9b:1::7f00:1', '64:ff9b::a9fe:a9fe'])(
    'refuses %s by default', (address) => {
      expect(policy().admitsAddress(address)).toBe(false);
    },
  );

  it.each(['93.184.216.34', '2606:4700::1111', '8.8.8.8'])('admits the public address %s', (address) => {
    expect(policy().admitsAddress(address)).toBe(true);
  });

  it('admits a forbidden range only when allowed, and nothing beside it', () => {
    const loopback = policy('127.0.0.0/8', '::1');
    expect(loopback.admitsAddress('127.0.0.1')).toBe(true);
    expect(loopback.admitsAddress('::1')).toBe(true);
    expect(loopback.admitsAddress('169.254.169.254')).toBe(false);
    expect(loopback.admitsAddress('10.0.0.1')).toBe(false);
  });

  it('allows host names by name and refuses what is not an address', () => {
    const named = policy('hooks.internal');
    expect(named.admitsHostName('HOOKS.internal')).toBe(true);
    expect(named.admitsHostName('other.internal')).toBe(false);
    expect(named.admitsAddress('not-an-ip')).toBe(false);
  });

  it('says which entry is not a CIDR or host', () => {
    expect(parseAllowEntry('10.0.0.0/33')).toEqual({ error: '"10.0.0.0/33" is not a CIDR' });
    expect(parseAllowEntry('bad host!')).toHaveProperty('error');
  });
});
