import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Node's on-disk compile cache, for the test workers and every process the tests start (they
// take it from here: test/support/child-env.ts). Without it each of them compiles undici, zod,
// pino and the sources anew. The folder is Node's own default for it.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'node-compile-cache');

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
