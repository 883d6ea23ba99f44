/** The worker's metrics: each handled event by the state it ended its turn in, and its time. */
import { Counter, Histogram, type Registry } from 'prom-client';
import { isKnownAction } from '../../protocol/index.ts';

export interface EventMetrics {
  /** One handled event: how it ended its turn and how long the handler took. */
  eventSettled(
    state: 'done' | 'skipped' | 'pending' | 'dead',
    action: string,
    seconds: number,
  ): void;
}

export function createEventMetrics(registry: Registry): EventMetrics {
  const settled = new Counter({
    name: 'worker_events_total',
    help: 'Events the worker handled, by the state they ended their turn in (pending = will retry)',
    labelNames: ['state', 'action'] as const,
    registers: [registry],
  });
  const handling = new Histogram({
    name: 'worker_event_duration_seconds',
    help: 'Time to handle one event, including messaging API calls and the import',
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return {
    eventSettled(state, action, seconds) {
      // Unknown actions are not a label value: the service may invent many.
      settled.inc({ state, action: isKnownAction(action) ? action : 'unknown' });
      handling.observe(seconds);
    },
  };
}
