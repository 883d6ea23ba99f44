import { defineConfig } from 'vitest/config';

/**
 * `npm run test:peppol`: the simulator's documents against the official UBL/CEN/Peppol
 * validators (test/official), and our Schematron compiler that runs them, whose artefacts are
 * not in the repository (see test/support/official-validators.ts). Not part of `npm test`; CI
 * runs it after `npm test` with the artefacts beside the repository (.ci/peppol.sh). Refuses to
 * run without the folder rather than skip.
 */
if (!process.env.PEPPOL_ARTEFACTS_DIR?.trim()) {
  throw new Error(
    'PEPPOL_ARTEFACTS_DIR is not set: name the folder of the official artefacts, e.g. ' +
      'PEPPOL_ARTEFACTS_DIR=/tmp/peppol-official npm run test:peppol ' +
      '(layout in test/support/official-validators.ts)',
  );
}

export default defineConfig({
  test: {
    include: ['test/official/**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    pool: 'forks',
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
});
