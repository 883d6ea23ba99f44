/**
 * Back-pressure between the webhook ingress and the worker when both run in one process
 * (ROLE=all): they share one event loop, and a webhook must be answered well within the
 * service's 5 seconds however large the backlog. The pacer watches the event loop's delay and
 * sets how many events the worker may have in hand, additive increase, multiplicative
 * decrease (as TCP does with its window):
 *
 *   delay p99 over the last interval > highMs   halve the limit (at least `min`)
 *   delay p99 < lowMs                           raise it by one (at most `max`)
 *   between                                     keep it
 *
 * So a burst of webhooks makes room for itself within an interval or two, and the backlog
 * drains at full speed again once the burst is over.
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
export function nextLimit(current: number, delayMs: number, options: PacerOptions): number {
  const { max, min = 1, highMs = 20, lowMs = 5 } = options;
  if (delayMs > highMs) return Math.max(min, Math.floor(current / 2));
  if (delayMs < lowMs) return Math.min(max, current + 1);
  return Math.min(max, Math.max(min, current));
}

/** A pacer that reads `delay` every `intervalMs` (the event loop's own delay by default). */
export function createPacer(
  options: PacerOptions & { intervalMs?: number; delay?: DelaySource },
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
    current = nextLimit(current, read(), options);
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
