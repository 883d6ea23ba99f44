import { describe, expect, it } from 'vitest';
import {
  BodyTooSlow,
  createRateWatch,
  deadlineForSize,
  startCallDeadline,
} from '../../../../src/consumer/api/deadline.ts';

/** A clock a test moves by hand. */
function manualClock(start = 0) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('deadlineForSize', () => {
  it('adds the time the size takes at the minimum rate', () => {
    // The defaults: 60 s plus 100 MiB at 64 KiB/s (1,600 s).
    expect(deadlineForSize(60_000, 104_857_600, 65_536)).toBe(1_660_000);
    expect(deadlineForSize(1500, 0, 1000)).toBe(1500);
    expect(deadlineForSize(1500, 1, 3)).toBe(1834);
  });
});

describe('startCallDeadline', () => {
  it('counts down from the start of the call', () => {
    const clock = manualClock(1000);
    const deadline = startCallDeadline(5000, clock.now);
    clock.advance(1200);
    expect(deadline.remaining()).toBe(3800);
    expect(deadline.ms).toBe(5000);
    expect(deadline.signal.aborted).toBe(false);
  });
});

describe('createRateWatch', () => {
  it('tolerates a slow start within the first window', () => {
    const clock = manualClock();
    const received = createRateWatch(1000, 1000, clock.now);
    clock.advance(900);
    received(1); // 1 byte in 900 ms: the window is not over yet
    clock.advance(100);
    received(1999); // 2,000 bytes in the first 1,000 ms
    clock.advance(500);
    expect(() => received(10)).not.toThrow();
  });

  it('gives up at the first chunk that ends a slow window, saying the rate it saw', () => {
    const clock = manualClock();
    const received = createRateWatch(1000, 1000, clock.now);
    for (let i = 0; i < 3; i++) {
      clock.advance(300);
      received(1);
    }
    clock.advance(300);
    let thrown: unknown;
    try {
      received(1);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(BodyTooSlow);
    expect(thrown).toMatchObject({ bytesPerSecond: 3, windowMs: 1200 });
  });

  it('judges each window on its own: a fast one does not pay for a slow one later', () => {
    const clock = manualClock();
    const received = createRateWatch(1000, 1000, clock.now);
    clock.advance(1000);
    received(1_000_000);
    clock.advance(1000);
    expect(() => received(10)).toThrow(BodyTooSlow);
  });
});
