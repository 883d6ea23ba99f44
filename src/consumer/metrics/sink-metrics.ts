/**
 * The status sink's metrics: each delivery by outcome and its time, and gauges of its outbox
 * (notices waiting, failing, the oldest one's age), read from the store on scrape.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { SinkOutboxStore } from '../store/sink-outbox.ts';
import { ageSeconds, gaugeOnScrape } from './scrape-gauge.ts';
import { sharedReading } from './shared-reading.ts';

export interface SinkMetrics {
  /** One delivery to the status sink: delivered, or failed (comes back later). */
  sinkDelivery(outcome: 'delivered' | 'failed', ms: number): void;
  /** Gauges of the status sink's outbox, read on scrape. */
  trackSinkOutbox(outbox: SinkOutboxStore): void;
}

/** `now` is the clock the oldest notice's age is measured with. */
export function createSinkMetrics(registry: Registry, now: () => number): SinkMetrics {
  const sinkDeliveries = new Counter({
    name: 'sink_deliveries_total',
    help: 'Notices handed to the status sink, by outcome (failed: the sink refused it, it comes back later)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const sinkDuration = new Histogram({
    name: 'sink_delivery_duration_seconds',
    help: 'Time the status sink took to take (or refuse) one notice',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return {
    sinkDelivery(outcome, ms) {
      sinkDeliveries.inc({ outcome });
      sinkDuration.observe(ms / 1000);
    },
    trackSinkOutbox(outbox) {
      const stats = sharedReading(() => outbox.stats());
      gaugeOnScrape(
        registry,
        {
          name: 'sink_outbox_notices',
          help: 'Status notices not yet delivered to the status sink (pending), and of those the ones whose last delivery failed (failing)',
          labelNames: ['state'],
        },
        async () => {
          const { pending, failing } = await stats();
          return [
            [{ state: 'pending' }, pending],
            [{ state: 'failing' }, failing],
          ];
        },
      );
      gaugeOnScrape(
        registry,
        {
          name: 'sink_outbox_oldest_age_seconds',
          help: 'Seconds since the oldest undelivered status notice was queued; 0 when there is none',
        },
        async () => ageSeconds(now(), (await stats()).oldestPendingAt),
      );
    },
  };
}
