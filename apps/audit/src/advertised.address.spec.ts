import { AdvertisedAddress, listeningUrl } from './advertised.address';

const DEFAULT = { source: 'urn:estate:local', schemaBase: 'http://127.0.0.1:8003/v1/schemas/events', auditUrl: 'http://127.0.0.1:8003' };
const PUBLIC = { source: 'urn:estate:prod', schemaBase: 'https://audit.example/v1/schemas/events', auditUrl: 'https://audit.example' };

describe('the address audit advertises', () => {
  it('is the one it listens on when no public URL is set (a port picked at start-up included)', () => {
    const advertised = new AdvertisedAddress(DEFAULT, false);
    advertised.listeningOn('127.0.0.1', 41234);
    expect(advertised.cloudEvents).toEqual({ source: 'urn:estate:local', schemaBase: 'http://127.0.0.1:41234/v1/schemas/events', auditUrl: 'http://127.0.0.1:41234' });
    expect(advertised.options()).toEqual({ source: 'urn:estate:local', schemaBase: 'http://127.0.0.1:41234/v1/schemas/events', auditUrl: 'http://127.0.0.1:41234' });
  });

  it('is ESTATE_AUDIT_PUBLIC_URL when set, wherever audit listens', () => {
    const advertised = new AdvertisedAddress(PUBLIC, true);
    advertised.listeningOn('0.0.0.0', 41234);
    expect(advertised.cloudEvents).toEqual(PUBLIC);
  });

  it.each([
    ['127.0.0.1', 'http://127.0.0.1:8003'],
    ['0.0.0.0', 'http://127.0.0.1:8003'],
    ['::', 'http://[::1]:8003'],
    ['::1', 'http://[::1]:8003'],
    ['audit.internal', 'http://audit.internal:8003'],
  ])('names a server bound to %s as %s', (host, url) => {
    expect(listeningUrl(host, 8003)).toBe(url);
  });
});
