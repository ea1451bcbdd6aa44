// ESLint rule: apps share code only through libs/. Each app imports only its own files; the one
// exception is the composition root apps/estate, which assembles the services. Code outside apps/
// (test/, examples/) may import apps/estate and each app's public surface: its start
// function (src/<name>.app.ts) and its config loader (src/config.ts). libs/ import no app at all;
// bench/ may import anything, since a benchmark times one component on its own.
// test/import-boundaries.spec.ts checks the same by reading the sources, so a disable comment cannot hide an offence.
const path = require('node:path');

const COMPOSITION_ROOT = 'estate';
const PUBLIC_SURFACE = /^apps\/[^/]+\/src\/([^/]+\.app|config)(\.[cm]?[jt]s)?$/;

/** Where an import lands, relative to the root, or undefined for a package. */
function targetOf(root, file, specifier) {
  if (specifier.startsWith('.')) return path.relative(root, path.resolve(path.dirname(file), specifier)).split(path.sep).join('/');
  // tsconfig's baseUrl is the root, so `apps/x/...` resolves there too.
  if (/^(apps|libs)\//.test(specifier)) return specifier;
  return undefined;
}

/** Why importing `specifier` from `file` crosses a boundary, or undefined when it may. */
function offence(root, file, specifier) {
  const target = targetOf(root, file, specifier);
  if (!target || !target.startsWith('apps/')) return undefined;
  const [, targetApp] = target.split('/');
  const [area, ownApp] = path.relative(root, file).split(path.sep);
  if (area === 'apps') {
    if (ownApp === targetApp || ownApp === COMPOSITION_ROOT) return undefined;
    return `apps/${ownApp} imports apps/${targetApp} (${target}): apps share code only through libs/, and only the composition root apps/${COMPOSITION_ROOT} assembles apps`;
  }
  if (area === 'libs') return `libs import no app (${target})`;
  // A benchmark times one component in isolation (a fold, an ingest loop), so it may reach inside an app.
  if (area === 'bench') return undefined;
  if (targetApp === COMPOSITION_ROOT || PUBLIC_SURFACE.test(target)) return undefined;
  return `outside apps/, import only apps/${COMPOSITION_ROOT} and an app's public surface (src/<name>.app.ts, src/config.ts), not ${target}`;
}

const CALLS = new Set(['require', 'require.resolve', 'jest.mock', 'jest.requireActual', 'jest.doMock']);

function calleeName(callee) {
  if (callee.type === 'Identifier') return callee.name;
  if (callee.type === 'MemberExpression' && callee.object.type === 'Identifier' && callee.property.type === 'Identifier') return `${callee.object.name}.${callee.property.name}`;
  return undefined;
}

module.exports = {
  offence,
  rule: {
    meta: {
      type: 'problem',
      docs: { description: 'apps import no other app; only apps/estate composes them' },
      schema: [{ type: 'object', properties: { root: { type: 'string' } }, additionalProperties: false }],
      messages: { crossing: '{{why}}' },
    },
    create(context) {
      const root = context.options[0]?.root ?? path.resolve(__dirname, '..');
      const check = (node) => {
        if (!node || node.type !== 'Literal' || typeof node.value !== 'string') return;
        const why = offence(root, context.filename, node.value);
        if (why) context.report({ node, messageId: 'crossing', data: { why } });
      };
      return {
        ImportDeclaration: (node) => check(node.source),
        ExportNamedDeclaration: (node) => check(node.source),
        ExportAllDeclaration: (node) => check(node.source),
        ImportExpression: (node) => check(node.source),
        TSImportEqualsDeclaration: (node) => node.moduleReference.type === 'TSExternalModuleReference' && check(node.moduleReference.expression),
        CallExpression: (node) => CALLS.has(calleeName(node.callee)) && check(node.arguments[0]),
      };
    },
  },
};
