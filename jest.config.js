/** One jest run over every workspace; tests talk to real PostgreSQL and Redis. */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ["<rootDir>/apps", "<rootDir>/packages", "<rootDir>/test"],
  testMatch: ['**/test/**/*.test.ts'],
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { diagnostics: false }],
    // jose ships ES modules only; jest's module system loads CommonJS, so its files are compiled too.
    '/node_modules/jose/.+\\.js$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  setupFiles: ['<rootDir>/test/test-env.ts'],
  testTimeout: 60000,
  maxWorkers: 2,
  // A worker exits by itself once its last file is done, and the more memory it holds the longer
  // its exit takes (from jest's end message to the parent seeing the exit: 79 ms at 653 MB, 165 ms
  // at 1.3 GB, on a 2-core AMD EPYC); past 500 ms jest kills it and prints 'a worker process has
  // failed to exit gracefully'. A worker whose heap passed 512 MB after a file is replaced, so the
  // last ones end small (177 MB each, 29-37 ms to exit, in the run that chose it).
  workerIdleMemoryLimit: '512MB',
};
