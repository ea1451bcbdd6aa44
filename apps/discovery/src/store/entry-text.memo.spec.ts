import type { CatalogEntry } from '@estate/events';
import { EntryTexts } from './entry-text.memo';

const entry = (name: string, versions: string[]): CatalogEntry => ({
  name,
  upstream: { server: 'pay', transport: 'streamable-http', allowSampling: false, allowElicitation: false },
  versions: versions.map((version) => ({ version, status: 'active', quarantined: false, spec: { name, version } as never, publishedAt: '2026-01-01T00:00:00.000Z' })),
  position: versions.length - 1,
});

describe('entry texts', () => {
  it('answers a row holding the text written last with the entry it was written from, and parses any other text', () => {
    const texts = new EntryTexts();
    const written = entry('pay.lookup', ['1.0.0', '1.1.0']);
    const text = texts.text(written);
    expect(JSON.parse(text)).toEqual(written);
    expect(texts.parse('pay.lookup', text)).toBe(written);

    // Someone else wrote the row (a rebuild, another instance): its text differs, so it is parsed.
    const other = JSON.stringify(entry('pay.lookup', ['1.0.0', '1.1.0', '1.2.0']));
    const read = texts.parse('pay.lookup', other);
    expect(read).not.toBe(written);
    expect(read.versions.map((v) => v.version)).toEqual(['1.0.0', '1.1.0', '1.2.0']);
    // The same text under another tool's name is not taken for that tool's entry.
    expect(texts.parse('pay.refund', text)).not.toBe(written);
  });

  it('stringifies an entry once for its row and its message', () => {
    const texts = new EntryTexts();
    const written = entry('pay.lookup', ['1.0.0']);
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      const first = texts.text(written);
      expect(texts.text(written)).toBe(first);
      expect(stringify).toHaveBeenCalledTimes(1);
    } finally {
      stringify.mockRestore();
    }
  });

  it('forgets the least recently kept texts beyond its bound', () => {
    const a = entry('pay.a', ['1.0.0']);
    const b = entry('pay.b', ['1.0.0']);
    const texts = new EntryTexts(JSON.stringify(a).length + 10);
    const textA = texts.text(a);
    const textB = texts.text(b);
    expect(texts.parse('pay.b', textB)).toBe(b);
    // a was pushed out by b: its text is parsed again, to an equal but new entry.
    const again = texts.parse('pay.a', textA);
    expect(again).toEqual(a);
    expect(again).not.toBe(a);
  });
});
