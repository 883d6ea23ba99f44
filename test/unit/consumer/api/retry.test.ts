import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  classifyTransportError,
  isRetryableStatus,
  parseRetryAfter,
} from '../../../../src/consumer/api/retry.ts';

describe('backoffDelay', () => {
  it('is never negative and never above the cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -5, max: 2_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        // Includes values a broken injected random could return.
        fc.double({ min: -2, max: 3, noNaN: true }),
        (attempt, base, max, random) => {
          const delay = backoffDelay(attempt, { base, max, random: () => random });
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(max);
          expect(Number.isInteger(delay)).toBe(true);
        },
      ),
    );
  });

  it('stays below base * 2^attempt until the cap is reached', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 1, max: 1_000 }),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        (attempt, base, random) => {
          const delay = backoffDelay(attempt, { base, max: 1e12, random: () => random });
          expect(delay).toBeLessThanOrEqual(base * 2 ** attempt);
        },
      ),
    );
  });

  it('doubles the ceiling with each attempt (full jitter at its top)', () => {
    const top = (attempt: number) =>
      backoffDelay(attempt, { base: 250, max: 10_000, random: () => 0.999_999_9 });
    expect([0, 1, 2, 3, 4, 5, 6].map(top)).toEqual([249, 499, 999, 1999, 3999, 7999, 9999]);
  });

  it('spreads delays over the whole range (full jitter at its bottom)', () => {
    expect(backoffDelay(3, { base: 250, max: 10_000, random: () => 0 })).toBe(0);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-05T09:00:00.000Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('1', now)).toBe(1_000);
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfter('0', now)).toBe(0);
  });

  it('reads an HTTP date relative to now', () => {
    expect(parseRetryAfter('Mon, 05 Jan 2026 09:00:30 GMT', now)).toBe(30_000);
  });

  it('treats a date in the past as now', () => {
    expect(parseRetryAfter('Mon, 05 Jan 2026 08:00:00 GMT', now)).toBe(0);
  });

  it('ignores a missing or unreadable header so the caller uses its own backoff', () => {
    for (const header of [undefined, '', 'soon', '-3', '1.5', '1e3', 'Mon, 99 Foo 2026']) {
      expect(parseRetryAfter(header, now)).toBeUndefined();
    }
  });

  it('never returns a negative delay, whatever the header', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.nat().map(String),
          fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
        ),
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        (header, at) => {
          const delay = parseRetryAfter(header, at);
          if (delay !== undefined) expect(delay).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });
});

describe('isRetryableStatus', () => {
  it('retries 5xx and 429 only', () => {
    expect([500, 502, 503, 504, 429].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 409, 422, 301].some(isRetryableStatus)).toBe(false);
  });
});

describe('classifyTransportError', () => {
  const withCode = (code: string) => Object.assign(new Error(code), { code });

  it('knows a refused connection never reached the server', () => {
    expect(classifyTransportError(withCode('ECONNREFUSED'))).toBe('not_sent');
  });

  it('finds the code on a wrapped cause or inside an AggregateError', () => {
    expect(
      classifyTransportError(new Error('other side closed', { cause: withCode('ECONNRESET') })),
    ).toBe('maybe_sent');
    expect(classifyTransportError(new AggregateError([withCode('ECONNREFUSED')]))).toBe('not_sent');
  });

  it('does not call a programming error a network error', () => {
    expect(classifyTransportError(new TypeError('bad header'))).toBe('other');
    expect(classifyTransportError(withCode('UND_ERR_INVALID_ARG'))).toBe('other');
  });
});
