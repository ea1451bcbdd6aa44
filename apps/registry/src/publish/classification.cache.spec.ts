import { classifyToolChange, type ToolSpec } from '@estate/contracts';
import { LOOKUP } from '../command/use-case.fixture';
import { classifierFor } from '../domain/tool.decider';
import { cachedClassifier } from './classification.cache';

const at = (version: string, title = LOOKUP.title): ToolSpec => ({ ...LOOKUP, version, title });

describe('the classification cache', () => {
  it('answers what the classifier answers, and keys the pair by content, not by object identity', () => {
    const classify = jest.fn(classifyToolChange);
    const cached = cachedClassifier(classifierFor('standard', classify), 10);
    const answer = cached(at('1.0.0'), at('1.1.0', 'Another title'));
    expect(answer).toEqual(classifyToolChange(at('1.0.0'), at('1.1.0', 'Another title')));
    expect(cached(at('1.0.0'), at('1.1.0', 'Another title'))).toBe(answer);
    expect(classify).toHaveBeenCalledTimes(1);
  });

  it('holds at most its limit, dropping the least recently used pair first', () => {
    const classify = jest.fn(classifyToolChange);
    const cached = cachedClassifier(classifierFor('standard', classify), 2);
    cached(at('1.0.0'), at('1.1.0'));
    cached(at('1.0.0'), at('1.2.0'));
    cached(at('1.0.0'), at('1.1.0'));
    cached(at('1.0.0'), at('1.3.0'));
    expect(cached.size()).toBe(2);
    cached(at('1.0.0'), at('1.1.0'));
    expect(classify).toHaveBeenCalledTimes(3);
    cached(at('1.0.0'), at('1.2.0'));
    expect(classify).toHaveBeenCalledTimes(4);
  });

  it('answers under the policy bound into it: the same pair is a different question under strict', () => {
    const open = (version: string, extra: Record<string, unknown> = {}): ToolSpec => ({
      ...LOOKUP, version, inputSchema: { type: 'object', properties: { reference: { type: 'string' }, ...extra } },
    });
    const [before, after] = [open('1.0.0'), open('1.1.0', { memo: { type: 'string' } })];
    const standard = cachedClassifier(classifierFor('standard'), 10);
    const strict = cachedClassifier(classifierFor('strict'), 10);
    expect(standard(before, after)).toMatchObject({ policy: 'standard', bump: 'minor' });
    expect(strict(before, after)).toMatchObject({ policy: 'strict', bump: 'major' });
    expect([standard.policy, strict.policy]).toEqual(['standard', 'strict']);
  });
});
