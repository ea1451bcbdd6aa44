import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// The contracts library is pure: no framework, no I/O, no hidden inputs. This test reads
// the sources so the rule cannot be switched off quietly. (The classifier folder has its
// own owner and is left to its own checks.)
const FORBIDDEN: readonly [RegExp, string][] = [
  [/from '@nestjs\//, 'Nest'],
  [/from '(typeorm|kafkajs|pg|jose|pino)'/, 'an infrastructure package'],
  [/from '(node:)?(fs|net|http|https|child_process|path|os|crypto)'/, 'a Node I/O module'],
  [/\bprocess\./, 'process'],
  [/\bDate\.now\(|\bnew Date\(/, 'the clock'],
  [/\bMath\.random\(|randomUUID/, 'randomness'],
  [/\bconsole\./, 'console output'],
  [/export \* from/, 'export *'],
];

function sources(): string[] {
  return readdirSync(__dirname).filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'));
}

describe('contracts library boundary', () => {
  it.each(sources())('%s stays pure', (file) => {
    const text = readFileSync(join(__dirname, file), 'utf8');
    for (const [pattern, what] of FORBIDDEN) {
      expect({ file, uses: pattern.test(text) ? what : null }).toEqual({ file, uses: null });
    }
  });

  it('keeps files short', () => {
    for (const file of sources()) {
      expect({ file, long: readFileSync(join(__dirname, file), 'utf8').split('\n').length > 300 }).toEqual({ file, long: false });
    }
  });
});
