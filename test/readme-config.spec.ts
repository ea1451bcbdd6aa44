import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) return sources(rel);
    return rel.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(rel) ? [rel] : [];
  });
}

describe('README configuration table', () => {
  it('documents every environment variable the services read', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const read = new Set(
      [...sources('apps'), ...sources('libs')].flatMap((file) =>
        [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/'((?:ESTATE|KAFKA|DATABASE|LOG|BANK)_[A-Z_]+)'/g)].map((m) => m[1]),
      ),
    );
    expect(read.size).toBeGreaterThan(20);
    const missing = [...read].filter((name) => !readme.includes(name)).sort();
    expect(missing).toEqual([]);
  });
});
