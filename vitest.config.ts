import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig, type TestUserConfig } from 'vitest/config';

// Node's on-disk compile cache, for the test workers and every process the tests start (they
// take it from here: test/support/child-env.ts). Without it each of them compiles undici, zod,
// pino and the sources anew. The folder is Node's own default for it.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'node-compile-cache');

/** Run by the second pass of `npm test` (vitest.guides.config.ts), alone. */
export const GUIDE_TESTS = ['test/e2e/forking-guide.test.ts'];

/** The browser tier: Chromium against a live console (test/browser). */
const BROWSER_TESTS = ['test/browser/**/*.test.ts'];

/** What every test runs with, in either pass of `npm test`. */
export const TEST_RUN: TestUserConfig = {
  // A real PostgreSQL for the store tests that need one (see the file), once per run.
  globalSetup: ['test/support/postgres-global.ts'],
  // Integration tests start real servers and SQLite files; two cores do best with two forks.
  pool: 'forks',
  maxWorkers: 2,
  testTimeout: 20_000,
  hookTimeout: 30_000,
};

export default defineConfig({
  test: {
    ...TEST_RUN,
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          // test/official needs artefacts from outside the repository: npm run test:peppol.
          exclude: ['**/node_modules/**', 'test/official/**', ...GUIDE_TESTS, ...BROWSER_TESTS],
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: BROWSER_TESTS,
          // After every other file, never beside one: Chromium aborts a page's requests with
          // net::ERR_NETWORK_CHANGED when a network interface appears, and the container tier
          // (test/container) creates Docker networks. Alone, the tier costs about a second
          // more than spread among the suite (three files on two workers); keeping the
          // container tier apart instead cost about 18 s (measured on CI's per-file times).
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
