/**
 * The conformance runner against a consumer that applies status events in the order they
 * arrive (test/support/conformance.ts, no-watermark): it refreshes on a formerValue it has not
 * seen, so only the park-and-retry sequence of status.order catches it.
 */
import { describe, expect, it } from 'vitest';
import { evidenceOf, failedIds, reportOn } from '../../support/conformance.ts';

describe('broken variants fail the duty they break', () => {
  it('status events applied in arrival order (no watermark): the status-order duty fails', async () => {
    const report = await reportOn('no-watermark');
    expect(failedIds(report)).toEqual(['status.order']);
    const evidence = evidenceOf(report, 'status.order');
    // The fail-then-deliver sequence ends right (every older event refreshes again); the
    // park-and-retry one ends at the older change.
    expect(evidence).toContain("outbound delivery status delivered; the service's: delivered");
    expect(evidence).toContain("outbound delivery status parked; the service's: pendingdelivery");
  }, 60_000);
});
