import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The library must stay pure: no framework, no I/O, no hidden inputs. This reads the sources
// so the rule holds even if a lint rule is switched off.
const sourceDir = __dirname;
const sources = readdirSync(sourceDir)
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'))
  .map((file) => ({ file, text: readFileSync(join(sourceDir, file), 'utf8') }));

describe('libs/protocol purity', () => {
  it('finds the sources it checks', () => {
    expect(sources.map((source) => source.file)).toContain('index.ts');
  });

  it.each(sources.map((source) => [source.file, source.text]))('%s imports only sibling files', (_file, text) => {
    const specifiers = [...text.matchAll(/from\s+'([^']+)'/g)].map((match) => match[1]);
    expect(specifiers.filter((specifier) => !specifier?.startsWith('./'))).toEqual([]);
    expect(text).not.toMatch(/\brequire\(/);
  });

  it.each(sources.map((source) => [source.file, source.text]))('%s uses no hidden inputs', (_file, text) => {
    expect(text).not.toMatch(/\bprocess\.|Date\.now|new Date\(|Math\.random|randomUUID|setTimeout|setInterval/);
  });

  it('index.ts names every export instead of re-exporting wholesale', () => {
    const index = sources.find((source) => source.file === 'index.ts')?.text ?? '';
    expect(index).not.toMatch(/export \*/);
  });
});
