/**
 * Gauges of the inbox, read from the store on scrape: the open events by state, the dead ones,
 * and how long the oldest open event has waited.
 */
import type { Registry } from 'prom-client';
import type { EventStore } from '../store/events.ts';
import { ageSeconds, gaugeOnScrape } from './scrape-gauge.ts';
import { sharedReading } from './shared-reading.ts';

export interface InboxMetrics {
  /** Gauges read on scrape; set by whoever owns the store. */
  trackInbox(events: EventStore): void;
}

/** `now` is the clock event ages are measured with, the worker's. */
export function createInboxMetrics(registry: Registry, now: () => number): InboxMetrics {
  return {
    trackInbox(events) {
      const count = sharedReading(() => events.countOpen());
      gaugeOnScrape(
        registry,
        {
          name: 'inbox_events',
          help: 'Open events of the inbox (still to be handled), by state (pending, processing); dead ones are inbox_dead_events',
          labelNames: ['state'],
        },
        async () => {
          const { pending, processing } = await count();
          return [
            [{ state: 'pending' }, pending],
            [{ state: 'processing' }, processing],
          ];
        },
      );
      gaugeOnScrape(
        registry,
        {
          name: 'inbox_dead_events',
          help: 'Dead events: failed for the last allowed time, kept for an operator until retention deletes them (RETENTION_EVENT_DAYS after arrival once their message is settled, RETENTION_DEAD_DAYS otherwise)',
        },
        async () => (await count()).dead,
      );
      // A stalled worker shows here even while the counts stand still (issue 26): pending
      // grows when no slot frees, processing when a handler is stuck in its turn.
      gaugeOnScrape(
        registry,
        {
          name: 'inbox_oldest_event_age_seconds',
          help: 'Seconds since the oldest pending event was received (pending), and since the processing event claimed longest ago was claimed (processing); 0 when there is none',
          labelNames: ['state'],
        },
        async () => {
          const oldest = await events.oldestOpen();
          const at = now();
          return (['pending', 'processing'] as const).map(
            (state) => [{ state }, ageSeconds(at, oldest[state])] as const,
          );
        },
      );
    },
  };
}
