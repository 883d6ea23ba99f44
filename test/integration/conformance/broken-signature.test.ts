/**
 * The conformance runner against deliberately broken variants of our consumer
 * (test/support/conformance.ts): each fails the duty it breaks, and no other.
 */
import { describe, expect, it } from 'vitest';
import { evidenceOf, failedDuties, failedIds, reportOn } from '../../support/conformance.ts';

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

  it('importing twice (a duplicate reaches a second database): the duplicates duty fails; with an importer that answers "already imported", a lost acknowledgement still ends delivered', async () => {
    const report = await reportOn('imports-twice');
    expect(failedIds(report)).toEqual(['duplicates']);
    // The repeat after the lost reply reached the other database, which imported again and
    // heard "already imported" from the shared target: fetched twice, acknowledged, never failed.
    const evidence = evidenceOf(report, 'import.lost-acknowledgement');
    expect(evidence).toMatch(/mark-as-delivered 503;.*documents\/core 200/);
    expect(evidence.match(/documents\/core 200/g)).toHaveLength(2);
    expect(evidence).not.toContain('mark-as-failed');
  });
});
