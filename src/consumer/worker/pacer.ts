/**
 * Back-pressure between the webhook ingress and the worker when both run in one process
 * (ROLE=all): they share one event loop, and a webhook must be answered well within the
 * service's 5 seconds however large the backlog. The pacer watches the event loop's delay and
 * sets how many events the worker may have in hand, additive increase, multiplicative
 * decrease (as TCP does with its window):
 *
 *   webhooks arrived and delay p99 > highMs    halve the limit (at least `min`)
 *   no webhooks arrived, or delay p99 < lowMs   raise it by one (at most `max`)
 *   between                                     keep it
 *
 * So a burst of webhooks makes room for itself within an interval or two, and the backlog
 * drains at full speed again once the burst is over. Without webhooks there is no one to yield
 * to: a loop slowed by the machine's other work (or by the worker itself) must not throttle it.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface Pacer {
  /** Events the worker may have in hand right now. */
  limit(): number;
  stop(): void;
}

/** One reading of the event loop's delay, in milliseconds (p99 of the last interval). */
export type DelaySource = () => number;

export interface PacerOptions {
  /** The ceiling: WORKER_CONCURRENCY. */
  max: number;
  /** @default 1 */
  min?: number;
  /** @default 20 */
  highMs?: number;
  /** @default 5 */
  lowMs?: number;
}

/** The rule itself, without timers: the next limit after one reading. */
export function nextLimit(
  current: number,
  reading: { delayMs: number; webhooks: number },
  options: PacerOptions,
): number {
  const { max, min = 1, highMs = 20, lowMs = 5 } = options;
  const { delayMs, webhooks } = reading;
  if (webhooks > 0 && delayMs > highMs) return Math.max(min, Math.floor(current / 2));
  if (webhooks === 0 || delayMs < lowMs) return Math.min(max, current + 1);
  return Math.min(max, Math.max(min, current));
}

/**
 * A pacer that reads `delay` every `intervalMs` (the event loop's own delay by default);
 * `webhooks()` counts the webhooks received since it was last called.
 */
export function createPacer(
  options: PacerOptions & { intervalMs?: number; delay?: DelaySource; webhooks: () => number },
): Pacer {
  let current = options.max;
  let histogram: ReturnType<typeof monitorEventLoopDelay> | undefined;
  let delay = options.delay;
  if (delay === undefined) {
    const h = monitorEventLoopDelay({ resolution: 10 });
    h.enable();
    histogram = h;
    delay = () => {
      const p99 = h.percentile(99) / 1e6;
      h.reset();
      return p99;
    };
  }
  const read = delay;
  const timer = setInterval(() => {
    current = nextLimit(current, { delayMs: read(), webhooks: options.webhooks() }, options);
  }, options.intervalMs ?? 200);
  timer.unref();
  return {
    limit: () => current,
    stop() {
      clearInterval(timer);
      histogram?.disable();
    },
  };
}
