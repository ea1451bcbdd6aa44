import { classifyToolChange, type ToolSpec } from '@estate/contracts';
import { LOOKUP } from '../command/use-case.fixture';
import { cachedClassifier } from './classification.cache';

const at = (version: string, title = LOOKUP.title): ToolSpec => ({ ...LOOKUP, version, title });

describe('the classification cache', () => {
  it('answers what the classifier answers, and keys the pair by content, not by object identity', () => {
    const classify = jest.fn(classifyToolChange);
    const cached = cachedClassifier(10, classify);
    const answer = cached(at('1.0.0'), at('1.1.0', 'Another title'));
    expect(answer).toEqual(classifyToolChange(at('1.0.0'), at('1.1.0', 'Another title')));
    expect(cached(at('1.0.0'), at('1.1.0', 'Another title'))).toBe(answer);
    expect(classify).toHaveBeenCalledTimes(1);
  });

  it('holds at most its limit, dropping the least recently used pair first', () => {
    const classify = jest.fn(classifyToolChange);
    const cached = cachedClassifier(2, classify);
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
});
