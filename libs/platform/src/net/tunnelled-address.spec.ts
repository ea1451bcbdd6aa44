import { parseAllowEntry, targetAddressPolicy, type AllowEntry } from './target-address.policy';
import { tunnelledIpv4 } from './tunnelled-address';

const strict = targetAddressPolicy([]);
const loopbackAllowed = targetAddressPolicy([parseAllowEntry('127.0.0.0/8') as AllowEntry]);

describe('IPv4 carried by IPv6 transition addresses', () => {
  it.each([
    ['2002:7f00:1::', '127.0.0.1'],
    ['2002:7F00:0001:0000::1', '127.0.0.1'],
    ['2002:a9fe:a9fe::', '169.254.169.254'],
    ['2002:c0a8:101::', '192.168.1.1'],
    ['2002:808:808::1', '8.8.8.8'],
    // Teredo: server 65.54.227.120 in bits 32-63, the client 127.0.0.1 inverted in the last 32 bits.
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', '127.0.0.1'],
    ['2001::80ff:fffe', '127.0.0.1'],
    ['2001:0:4136:e378::f5ff:fffe', '10.0.0.1'],
    ['2001:0:0:0:0:0:128.255.255.254', '127.0.0.1'],
  ])('%s carries %s', (address, ipv4) => {
    expect(tunnelledIpv4(address)).toBe(ipv4);
  });

  it.each(['::1', '2001:db8::1', '2003::1', '64:ff9b::7f00:1', '127.0.0.1', 'example.com'])('%s carries none', (address) => {
    expect(tunnelledIpv4(address)).toBeUndefined();
  });
});

describe('the target address policy on transition addresses', () => {
  it.each(['2002:7f00:1::', '2002:a9fe:a9fe::1', '2002:a00:1::', '2001:0:4136:e378:8000:63bf:80ff:fffe', '2001::f5ff:fffe'])(
    'refuses %s, which reaches a forbidden IPv4 address', (address) => {
      expect(strict.admitsAddress(address)).toBe(false);
    },
  );

  it('still refuses what the shared classifier refuses, and admits public addresses', () => {
    expect(['::1', '::ffff:127.0.0.1', '64:ff9b::7f00:1', '10.0.0.1'].map(strict.admitsAddress)).toEqual([false, false, false, false]);
    expect(['2002:808:808::1', '2001:0:4136:e378:8000:63bf:f7f7:f7f7', '8.8.8.8', '2606:4700::1111'].map(strict.admitsAddress)).toEqual([true, true, true, true]);
  });

  it('admits a wrapped address the allow list admits as IPv4', () => {
    expect(loopbackAllowed.admitsAddress('2002:7f00:1::')).toBe(true);
    expect(loopbackAllowed.admitsAddress('2002:a9fe:a9fe::')).toBe(false);
  });
});
