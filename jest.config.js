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
  // A worker exits by itself once its last file is done; the kernel's teardown of its memory
  // takes time by its size (165 ms for a 1.3 GB worker here), and past jest's 500 ms jest kills it
  // and prints 'a worker process has failed to exit gracefully'. A worker whose heap passed 512 MB
  // after a file is replaced, so the last ones end small (177 MB, 29-37 ms to exit).
  workerIdleMemoryLimit: '512MB',
};
