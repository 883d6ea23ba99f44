import { defineConfig } from 'vitest/config';
import { GUIDE_TESTS, TEST_RUN } from './vitest.config.ts';

/**
 * The second pass of `npm test`: the tests that follow a guide as a user would, after the suite
 * and alone, because a guide runs whole commands (docs/forking.md runs `npm run test:importer`,
 * a vitest run of its own) that would otherwise share the two cores with the timing-sensitive
 * tests of the first pass.
 */
export default defineConfig({
  test: { ...TEST_RUN, include: GUIDE_TESTS, exclude: ['**/node_modules/**'] },
});
