import { describe, expect, it } from 'vitest';
import { createPacer, nextLimit } from '../../../../src/consumer/worker/pacer.ts';

describe('the worker pacer', () => {
  const options = { max: 32, min: 1, highMs: 20, lowMs: 5 };

  const busy = (delayMs: number) => ({ delayMs, webhooks: 10 });

  it('halves the worker when webhooks arrive and the loop lags, grows it back one by one', () => {
    expect(nextLimit(32, busy(40), options)).toBe(16);
    expect(nextLimit(16, busy(40), options)).toBe(8);
    expect(nextLimit(1, busy(400), options)).toBe(1);
    expect(nextLimit(8, busy(2), options)).toBe(9);
    expect(nextLimit(32, busy(2), options)).toBe(32);
    expect(nextLimit(9, busy(10), options)).toBe(9);
  });

  it('never throttles when no webhook arrived: a slow loop then has no one to yield to', () => {
    expect(nextLimit(4, { delayMs: 400, webhooks: 0 }, options)).toBe(5);
    expect(nextLimit(32, { delayMs: 400, webhooks: 0 }, options)).toBe(32);
  });

  it('recovers the full concurrency after a burst, reading the delay it is given', async () => {
    const readings = [50, 50, 50, 1, 1, 1];
    const seen: number[] = [];
    let next = 0;
    const pacer = createPacer({
      ...options,
      max: 8,
      intervalMs: 1,
      webhooks: () => 1,
      delay: () => {
        const value = readings[next] ?? 1;
        next += 1;
        return value;
      },
    });
    for (let i = 0; i < 200 && next < readings.length + 10; i++) {
      seen.push(pacer.limit());
      await new Promise((r) => setTimeout(r, 2));
    }
    pacer.stop();
    // Below the ceiling for at least ten intervals (three halvings, seven steps back up).
    expect(Math.min(...seen)).toBeLessThan(8);
    expect(pacer.limit()).toBe(8);
  });
});
