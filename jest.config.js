/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Tests written as a user writes them import 'mongo-bench': the package's entry, from source.
  moduleNameMapper: {
    '^mongo-bench$': '<rootDir>/lib/index.ts',
    '^mongo-bench/internals$': '<rootDir>/lib/internals.ts',
  },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }],
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  testTimeout: 60000,
  // Test files each start their own servers and child processes and mostly wait on them: more workers
  // than the two cores here keep them busier (jest from a fresh clone: 348-365 s with four, 404-445 s
  // with three, 526 s with two), and the tests that measure time assert what load cannot break.
  maxWorkers: 4,
  // Slow files first, also on a fresh clone where jest has no timings yet (see the file).
  testSequencer: '<rootDir>/test/support/slow-first-sequencer.js',
};
