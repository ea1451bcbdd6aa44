import fc from 'fast-check';

import { decodeBase64, decodeText, encodeBase64, encodeText } from './base64.codec';

describe('base64 codec', () => {
  it('matches Node for every byte string, in both variants, and reads its own output back', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const buffer = Buffer.from(bytes);
        expect(encodeBase64(bytes)).toBe(buffer.toString('base64'));
        expect(encodeBase64(bytes, 'url')).toBe(buffer.toString('base64url'));
        expect(decodeBase64(encodeBase64(bytes))).toEqual(bytes);
        expect(decodeBase64(encodeBase64(bytes, 'url'), 'url')).toEqual(bytes);
      }),
      { numRuns: 500 },
    );
  });

  it.each([['YQ'], ['Y==='], ['a-b_'], ['YQ=='.slice(1)], ['Y Q=='], ['YQ==YQ==']])('refuses the standard-variant text %p', (text) => {
    expect(decodeBase64(text)).toBeNull();
  });

  it.each([['YQ=='], ['a+b/'], ['Y']])('refuses the url-variant text %p', (text) => {
    expect(decodeBase64(text, 'url')).toBeNull();
  });

  it('round-trips UTF-8 text and refuses bytes that are not UTF-8', () => {
    expect(decodeText(encodeText('Grüße, 世界'))).toBe('Grüße, 世界');
    expect(decodeText('/w==')).toBeNull();
  });
});
