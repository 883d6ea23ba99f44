/**
 * The conformance runner against deliberately broken variants of our consumer
 * (test/support/conformance.ts): each fails the duty it breaks, and only those that break
 * with it.
 */
import { describe, expect, it } from 'vitest';
import { evidenceOf, failedDuties, failedIds, reportOn } from '../../support/conformance.ts';

describe('broken variants fail the duty they break', () => {
  it('acknowledging before the import: import order, lost acknowledgement, permanent and transient failure duties fail', async () => {
    // Acknowledged on arrival, it is acknowledged before each of the imports; the one
    // acknowledgement whose reply is lost is never sent again (the lost-acknowledgement duty
    // waits its whole timeout for it).
    expect(await failedDuties('ack-first')).toEqual([
      'import.acknowledge',
      'import.lost-acknowledgement',
      'import.permanent-failure',
      'import.transient-failure',
    ]);
  }, 60_000);

  it('marking failed on a 503: the lost-acknowledgement and transient-failure duties fail', async () => {
    // The lost reply to mark-as-delivered is a 503 too.
    expect(await failedDuties('fails-on-503')).toEqual([
      'import.lost-acknowledgement',
      'import.transient-failure',
    ]);
  }, 60_000);

  it('an importer that takes its own earlier import for a rejection (two databases, one target): the lost-acknowledgement duty fails', async () => {
    const report = await reportOn('duplicate-as-rejection');
    // Two databases import a duplicate twice, as imports-twice does; what this importer adds
    // is the mark-as-failed of a message it took.
    expect(failedIds(report)).toEqual(['duplicates', 'import.lost-acknowledgement']);
    const evidence = evidenceOf(report, 'import.lost-acknowledgement');
    expect(evidence).toMatch(/mark-as-delivered 503;.*mark-as-failed/);
  }, 60_000);
});
