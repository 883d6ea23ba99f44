/**
 * A suite of test/official: run on the artefacts folder PEPPOL_ARTEFACTS_DIR names
 * (official-validators.ts). Such a suite runs only on purpose (npm run test:peppol, or CI with
 * the artefacts beside the repository), so a folder that is not there, or lacks a file, is a
 * failing test that says what is missing, never a silent skip.
 */
import { describe, it } from 'vitest';
import { artefactsFromEnv } from './official-validators.ts';

export function describeOfficial(name: string, body: (artefactsDir: string) => void): void {
  const artefacts = artefactsFromEnv();
  if ('missing' in artefacts) {
    describe(name, () => {
      it('has the official artefacts', () => {
        throw new Error(artefacts.missing);
      });
    });
  } else {
    describe(name, { timeout: 240_000 }, () => body(artefacts.dir));
  }
}
