import fc from 'fast-check';

import { decodeHeaderValue, encodeHeaderValue } from './header-value.decoder';

describe('mirrored header values', () => {
  it.each([
    ['eu-north-1', 'eu-north-1'],
    ['', ''],
    ['a b', 'a b'],
    ['Grüße', `=?base64?${Buffer.from('Grüße').toString('base64')}?=`],
    [' lead', `=?base64?${Buffer.from(' lead').toString('base64')}?=`],
    ['trail\t', `=?base64?${Buffer.from('trail\t').toString('base64')}?=`],
    ['two\nlines', `=?base64?${Buffer.from('two\nlines').toString('base64')}?=`],
    // A plain value that looks like the marker is encoded too, or it would be read as one.
    ['=?base64?abc?=', `=?base64?${Buffer.from('=?base64?abc?=').toString('base64')}?=`],
  ])('writes %p as %p', (value, header) => {
    expect(encodeHeaderValue(value)).toBe(header);
    expect(decodeHeaderValue(header)).toEqual({ ok: true, value });
  });

  it('leaves a value with other casing of the marker alone (the marker is lowercase only)', () => {
    expect(decodeHeaderValue('=?BASE64?YQ==?=')).toEqual({ ok: true, value: '=?BASE64?YQ==?=' });
  });

  it.each([
    ['=?base64?YQ?=', 'is marked =?base64?…?= but its payload is not valid Base64'],
    ['=?base64?Y Q==?=', 'is marked =?base64?…?= but its payload is not valid Base64'],
    ['=?base64?gA==?=', 'is marked =?base64?…?= but its payload is not UTF-8 text'],
    ['bad\u0000byte', 'contains characters outside visible ASCII, space and tab'],
    ['caf\u00e9', 'contains characters outside visible ASCII, space and tab'],
  ])('refuses %p', (header, reason) => {
    expect(decodeHeaderValue(header)).toEqual({ ok: false, reason });
  });

  it('reads back every string it writes, and its Base64 is the standard one', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (value) => {
        const header = encodeHeaderValue(value);
        expect(decodeHeaderValue(header)).toEqual({ ok: true, value });
        if (header !== value) expect(header).toBe(`=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`);
        expect(header).toMatch(/^[\x20-\x7E\t]*$/);
      }),
      { numRuns: 500 },
    );
  });
});
