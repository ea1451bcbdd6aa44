/** One runner for the three tiers: *.spec.ts (pure), *.int-spec.ts (real Postgres/Kafka), test/*.e2e-spec.ts. */
const swc = {
  jsc: {
    target: 'es2022',
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
};
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test', '<rootDir>/examples'],
  testRegex: '.*\\.(spec|int-spec|e2e-spec)\\.ts$',
  // Deliberate offences for test/import-boundaries.spec.ts to find, not tests.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/fixtures/'],
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }] },
  moduleNameMapper: {
    '^@estate/(protocol|contracts|events|platform|catalog)$': '<rootDir>/libs/$1/src/index.ts',
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
};
