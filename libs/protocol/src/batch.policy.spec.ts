import { checkBatchAllowed, supportsBatching } from './batch.policy';

describe('batch policy', () => {
  it('allows batches on 2025-03-26, the one revision that had them', () => {
    expect(supportsBatching('2025-03-26')).toBe(true);
    expect(checkBatchAllowed('2025-03-26')).toBeNull();
  });

  it.each([['2024-11-05'], ['2025-06-18'], ['2025-11-25'], ['nonsense'], [undefined], [null]])(
    'refuses batches on %p',
    (version) => {
      expect(supportsBatching(version)).toBe(false);
    },
  );

  it.each([['2025-06-18'], ['2025-11-25'], ['2024-11-05']])(
    'says batches are not supported on the negotiated version %s',
    (version) => {
      expect(checkBatchAllowed(version)).toEqual({
        code: -32600,
        message: `Invalid Request: JSON-RPC batches are not supported on the negotiated protocol version "${version}"; send each message on its own`,
      });
    },
  );

  it('says batches are not supported before any version is negotiated', () => {
    expect(checkBatchAllowed(undefined)?.message).toBe(
      'Invalid Request: JSON-RPC batches are not supported before a protocol version has been negotiated; send each message on its own',
    );
  });
});
