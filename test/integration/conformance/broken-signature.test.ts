/**
 * The conformance runner against deliberately broken variants of our consumer
 * (test/support/conformance.ts): each fails the duty it breaks, and no other.
 */
import { describe, expect, it } from 'vitest';
import { failedDuties } from '../../support/conformance.ts';

describe('broken variants fail the duty they break', () => {
  it('204 without verifying: every refused-signature duty fails', async () => {
    expect(await failedDuties('unverified')).toEqual([
      'signature.tampered',
      'signature.wrong-secret',
      'signature.stale',
      'signature.future',
      'signature.missing',
    ]);
  });

  it('importing twice (a duplicate reaches a second database): the duplicates duty fails', async () => {
    expect(await failedDuties('imports-twice')).toEqual(['duplicates']);
  });
});
