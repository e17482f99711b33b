/**
 * Browser tests: Debian's Chromium driven by playwright-core against the real
 * API (`npm start`), or against E2E_BASE_URL when set. Run with `npm run test:e2e`.
 */
/** @type {import('jest').Config} */
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/**/*.e2e.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { isolatedModules: true, diagnostics: false }],
    // jose (the API's token check, loaded through the test kit) ships ES modules only: compiled as the root config does.
    '/node_modules/jose/.+\\.js$': ['ts-jest', { isolatedModules: true, diagnostics: false, tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  // What the run made in its own database and Redis index is removed after it, and checked.
  globalSetup: '<rootDir>/global-setup.ts',
  globalTeardown: '<rootDir>/global-teardown.ts',
  testTimeout: 180000,
  maxWorkers: 1,
};
