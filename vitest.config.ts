import { defineConfig } from 'vitest/config';

/** Run by the second pass of `npm test` (vitest.guides.config.ts), alone. */
export const GUIDE_TESTS = ['test/e2e/forking-guide.test.ts'];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/official needs artefacts from outside the repository: npm run test:peppol.
    exclude: ['**/node_modules/**', 'test/official/**', ...GUIDE_TESTS],
    // A real PostgreSQL for the store tests that need one (see the file).
    globalSetup: ['test/support/postgres-global.ts'],
    // Integration tests start real servers and SQLite files; two cores do best with two forks.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
