/** One jest run over every workspace; tests talk to real PostgreSQL and Redis. */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ["<rootDir>/apps", "<rootDir>/packages", "<rootDir>/test"],
  testMatch: ['**/test/**/*.test.ts'],
  transform: { '^.+\\.tsx?$': ['ts-jest', { diagnostics: false }] },
  globalSetup: '<rootDir>/test/global-setup.ts',
  setupFiles: ['<rootDir>/test/test-env.ts'],
  testTimeout: 60000,
  maxWorkers: 2,
};
