import { PromptTextVerdicts } from './prompt-text.cache';
import { inspectPromptText } from './prompt-text.rules';

const HIDDEN = 'Returns a pay\u00ADment.';

describe('kept prompt-text verdicts', () => {
  it('judges a text once per context and answers at the path asked, in a fresh copy each time', () => {
    const verdicts = new PromptTextVerdicts();
    const judge = jest.fn(() => [{ path: '$.a', code: 'hidden_characters', message: 'found' }]);
    const first = verdicts.verdict(HIDDEN, '"block"', '$.a', judge);
    first.push({ path: '$.x', code: 'other', message: 'a caller appending to its answer' });
    expect(verdicts.verdict(HIDDEN, '"block"', '$.b', judge)).toEqual([{ path: '$.b', code: 'hidden_characters', message: 'found' }]);
    expect(judge).toHaveBeenCalledTimes(1);
    verdicts.verdict(HIDDEN, '"line"', '$.a', judge);
    expect(judge).toHaveBeenCalledTimes(2);
  });

  it('forgets the least recently used texts once the kept characters pass the budget', () => {
    const verdicts = new PromptTextVerdicts(30, 100);
    const judge = jest.fn(() => []);
    for (const text of ['aaaaaaaaaa', 'bbbbbbbbbb', 'aaaaaaaaaa', 'cccccccccc']) verdicts.verdict(text, 'k', '$', judge);
    expect(verdicts.size).toBe(2);
    verdicts.verdict('aaaaaaaaaa', 'k', '$', judge);
    expect(judge).toHaveBeenCalledTimes(3);
    verdicts.verdict('bbbbbbbbbb', 'k', '$', judge);
    expect(judge).toHaveBeenCalledTimes(4);
  });

  it('answers a text asked again and again as fast with 40,000 texts kept as with 100', () => {
    const judge = () => [];
    const hits = (kept: number) => {
      const verdicts = new PromptTextVerdicts(10_000_000);
      for (let i = 0; i < kept; i += 1) verdicts.verdict(`p${i}`, 'k', '$', judge);
      verdicts.verdict('type', 'k', '$', judge);
      const start = performance.now();
      for (let i = 0; i < 20_000; i += 1) verdicts.verdict('type', 'k', '$', judge);
      return performance.now() - start;
    };
    hits(100);
    // Deleting and re-adding the key on every hit made each hit walk its earlier copies: seconds here.
    expect(hits(40_000)).toBeLessThan(10 * hits(100) + 50);
  });

  it('keeps no verdict of a text longer than its limit', () => {
    const verdicts = new PromptTextVerdicts(1_000, 5);
    const judge = jest.fn(() => []);
    verdicts.verdict('a long text', 'k', '$', judge);
    verdicts.verdict('a long text', 'k', '$', judge);
    expect(verdicts.size).toBe(0);
    expect(judge).toHaveBeenCalledTimes(2);
  });

  it('gives the rules the same answer asked again, under each context apart', () => {
    const context = { metadataValues: ['payments:read'] };
    const mention = 'Needs payments:read to run.';
    expect(inspectPromptText(mention, '$.description', context).map((i) => i.code)).toEqual(['platform_metadata']);
    expect(inspectPromptText(mention, '$.title', { ...context, kind: 'line' })).toEqual([
      expect.objectContaining({ path: '$.title', code: 'platform_metadata' }),
    ]);
    // Without metadata values the same text is only checked for the other rules.
    expect(inspectPromptText(mention, '$.description')).toEqual([]);
    expect(inspectPromptText(mention, '$.description', context).map((i) => i.path)).toEqual(['$.description']);
    expect(inspectPromptText(HIDDEN, '$.x', { skip: ['hidden_characters'] })).toEqual([]);
    expect(inspectPromptText(HIDDEN, '$.x').map((i) => i.code)).toEqual(['hidden_characters']);
  });
});
