/**
 * The conformance runner against deliberately broken variants of our consumer
 * (test/support/conformance.ts): each fails the duty it breaks, and only those that break
 * with it.
 */
import { describe, expect, it } from 'vitest';
import { failedDuties } from '../../support/conformance.ts';

describe('broken variants fail the duty they break', () => {
  it('acknowledging before the import: import order, permanent and transient failure duties fail', async () => {
    // Acknowledged on arrival, it is acknowledged before each of the three imports.
    expect(await failedDuties('ack-first')).toEqual([
      'import.acknowledge',
      'import.permanent-failure',
      'import.transient-failure',
    ]);
  });

  it('marking failed on a 503: the transient-failure duty fails', async () => {
    expect(await failedDuties('fails-on-503')).toEqual(['import.transient-failure']);
  });
});
