import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { TargetAddressPolicy } from './target-address.policy';

/** The `code` of the error a refused lookup fails the request with. */
export const ADDRESS_REFUSED = 'ADDRESS_REFUSED';

/**
 * A `lookup` for http(s).request that refuses a name resolving to a forbidden address. The check
 * runs on the very addresses the socket then connects to, so a name that resolved harmlessly when
 * the URL was accepted (or a rebinding DNS server) cannot steer a later request inward.
 */
export function guardedLookup(policy: TargetAddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const allowedByName = policy.admitsHostName(hostname);
      const refused = addresses.find((a) => !allowedByName && !policy.admitsAddress(a.address));
      if (refused) {
        const denial = Object.assign(new Error(`${hostname} resolves to ${refused.address}, which outbound requests may not reach`), { code: ADDRESS_REFUSED });
        return callback(denial, '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
