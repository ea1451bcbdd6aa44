import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  isSupportedProtocolVersion,
  negotiateProtocolVersion,
} from './protocol-version.negotiator';

describe('protocol version negotiation', () => {
  it('lists the supported versions newest first', () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
    expect([...SUPPORTED_PROTOCOL_VERSIONS].sort().reverse()).toEqual([...SUPPORTED_PROTOCOL_VERSIONS]);
  });

  it('names the newest supported version as the latest', () => {
    expect(LATEST_PROTOCOL_VERSION).toBe('2025-11-25');
  });

  it.each(SUPPORTED_PROTOCOL_VERSIONS.map((version) => [version]))('echoes the supported version %s', (version) => {
    expect(negotiateProtocolVersion(version)).toBe(version);
  });

  it.each([['2099-01-01'], ['2024-10-07'], ['2026-07-28'], [''], ['2025-11-25 ']])(
    'offers the newest version for the unsupported version %p',
    (version) => {
      expect(negotiateProtocolVersion(version)).toBe(LATEST_PROTOCOL_VERSION);
    },
  );

  it.each([[undefined], [null], [20250618], [true], [['2025-06-18']], [{ version: '2025-06-18' }]])(
    'offers the newest version, without throwing, for the non-string input %p',
    (requested) => {
      expect(negotiateProtocolVersion(requested)).toBe(LATEST_PROTOCOL_VERSION);
    },
  );

  it('tells supported versions from everything else', () => {
    expect(isSupportedProtocolVersion('2024-11-05')).toBe(true);
    expect(isSupportedProtocolVersion('2024-10-07')).toBe(false);
    expect(isSupportedProtocolVersion(undefined)).toBe(false);
  });
});
