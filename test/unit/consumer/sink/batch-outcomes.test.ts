/**
 * deliverMany()'s answer as the sink loop reads it (batch-outcomes.ts): only a clear
 * `fulfilled` is a delivery; whatever else a forked sink answers counts as not delivered.
 */
import { describe, expect, it } from 'vitest';
import {
  outcomeAt,
  SinkOutcomeMissingError,
} from '../../../../src/consumer/sink/batch-outcomes.ts';

describe('outcomeAt', () => {
  it("reads Promise.allSettled's entries as they are", async () => {
    const refusal = new Error('refused');
    const settled = await Promise.allSettled([Promise.resolve(1), Promise.reject(refusal)]);
    expect(outcomeAt(settled, 0)).toEqual({ status: 'fulfilled' });
    expect(outcomeAt(settled, 1)).toEqual({ status: 'rejected', reason: refusal });
  });

  it('counts a missing, odd or absent answer as not delivered', () => {
    const missing = { status: 'rejected', reason: expect.any(SinkOutcomeMissingError) };
    expect(outcomeAt([{ status: 'fulfilled' }], 1)).toEqual(missing);
    expect(outcomeAt(undefined, 0)).toEqual(missing);
    expect(outcomeAt('ok', 0)).toEqual(missing);
    expect(outcomeAt([true], 0)).toEqual(missing);
    expect(outcomeAt([{ status: 'ok' }], 0)).toEqual(missing);
    expect(outcomeAt([null], 0)).toEqual(missing);
  });
});
