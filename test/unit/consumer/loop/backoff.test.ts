import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventRetryDelay } from '../../../../src/consumer/loop/backoff.ts';

describe('eventRetryDelay', () => {
  it('doubles from the base and stops at the cap', () => {
    const fixed = { random: () => 1 };
    expect([1, 2, 3, 4].map((n) => eventRetryDelay(n, fixed))).toEqual([2000, 4000, 8000, 16000]);
    expect(eventRetryDelay(30, fixed)).toBe(300_000);
  });

  it('stays between half the step and the step (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, r) => {
          const step = Math.min(300_000, 2000 * 2 ** (n - 1));
          const delay = eventRetryDelay(n, { random: () => r });
          return delay >= step / 2 && delay <= step;
        },
      ),
    );
  });
});
