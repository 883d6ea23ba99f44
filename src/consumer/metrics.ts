/** Prometheus metrics of the consumer, on a registry of its own (no global state). */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { isKnownAction } from '../protocol/index.ts';
import type { EventStore } from './store/events.ts';
import type { SinkOutboxStore } from './store/sink-outbox.ts';
import type { Store } from './store/store.ts';
import type { SubmissionStore } from './store/submissions.ts';
import type { SubmissionOutcome } from './submit/submission-worker.ts';

export type WebhookOutcome =
  | 'stored'
  | 'duplicate'
  | 'unauthorized'
  | 'bad_request'
  | 'too_large'
  | 'unsupported_encoding'
  | 'method_not_allowed'
  | 'over_capacity'
  | 'aborted'
  | 'store_unavailable';

export interface Metrics {
  readonly registry: Registry;
  webhookReceived(outcome: WebhookOutcome, seconds: number): void;
  /** One handled event: how it ended its turn and how long the handler took. */
  eventSettled(
    state: 'done' | 'skipped' | 'pending' | 'dead',
    action: string,
    seconds: number,
  ): void;
  /** What a retention run removed, by step (rows; pages for `pages`). */
  retentionPruned(step: string, count: number): void;
  /** How long one retention batch held the store (PruneBatch.ms). */
  retentionBatch(step: string, ms: number): void;
  /** Gauges read on scrape; set by whoever owns the store. */
  trackInbox(events: EventStore): void;
  /** Gauges of the webhook listener's limits (WEBHOOK_MAX_CONNECTIONS, ..._INFLIGHT_BYTES). */
  trackAdmission(admission: { stats(): { connections: number; inflightBytes: number } }): void;
  /** One delivery to the status sink: delivered, or failed (comes back later). */
  sinkDelivery(outcome: 'delivered' | 'failed', ms: number): void;
  /** Gauges of the status sink's outbox, read on scrape. */
  trackSinkOutbox(outbox: SinkOutboxStore): void;
  /** One attempt or lookup of the submission outbox, by outcome. */
  submissionOutcome(outcome: SubmissionOutcome): void;
  /** Gauges of the submission outbox, read on scrape. */
  trackSubmissions(submissions: SubmissionStore): void;
  /** The three above, read from one store. */
  trackStore(store: Pick<Store, 'events' | 'sinkOutbox' | 'submissions'>): void;
}

export interface MetricsOptions {
  /** Node's default process metrics. @default true */
  defaultMetrics?: boolean;
  /** The clock event ages are measured with, the worker's. @default Date.now */
  now?: () => number;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const now = options.now ?? Date.now;
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'webhook_requests_total',
    help: 'Webhook requests by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'webhook_request_duration_seconds',
    help: 'Time from request start to the answer, including the durable write',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
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
  const pruned = new Counter({
    name: 'retention_pruned_total',
    help: 'What retention removed: bodies, events, eventIds, messages (rows), pages (SQLite pages freed)',
    labelNames: ['step'] as const,
    registers: [registry],
  });
  const batches = new Histogram({
    name: 'retention_batch_duration_seconds',
    help: 'How long each retention batch held the store (webhooks arriving meanwhile wait for it on SQLite), by step',
    labelNames: ['step'] as const,
    buckets: [0.0025, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
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
  const submissionOutcomes = new Counter({
    name: 'submission_attempts_total',
    help: 'Attempts and lookups of the submission outbox, by outcome (submitted, found, refused, maybe_sent, not_sent, undecided)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const metrics: Metrics = {
    registry,
    sinkDelivery(outcome, ms) {
      sinkDeliveries.inc({ outcome });
      sinkDuration.observe(ms / 1000);
    },
    trackSinkOutbox(outbox) {
      const stats = sharedReading(() => outbox.stats());
      new Gauge({
        name: 'sink_outbox_notices',
        help: 'Status notices not yet delivered to the status sink (pending), and of those the ones whose last delivery failed (failing)',
        labelNames: ['state'] as const,
        registers: [registry],
        async collect() {
          const { pending, failing } = await stats();
          this.set({ state: 'pending' }, pending);
          this.set({ state: 'failing' }, failing);
        },
      });
      new Gauge({
        name: 'sink_outbox_oldest_age_seconds',
        help: 'Seconds since the oldest undelivered status notice was queued; 0 when there is none',
        registers: [registry],
        async collect() {
          const { oldestPendingAt } = await stats();
          this.set(oldestPendingAt === null ? 0 : Math.max(0, (now() - oldestPendingAt) / 1000));
        },
      });
    },
    submissionOutcome(outcome) {
      submissionOutcomes.inc({ outcome });
    },
    trackSubmissions(submissions) {
      const stats = sharedReading(() => submissions.stats());
      new Gauge({
        name: 'submission_outbox_open',
        help: 'Invoices of the submission outbox not settled yet, by state (queued, sending, unknown: its reply was lost)',
        labelNames: ['state'] as const,
        registers: [registry],
        async collect() {
          const open = await stats();
          for (const state of ['queued', 'sending', 'unknown'] as const) {
            this.set({ state }, open[state]);
          }
        },
      });
      new Gauge({
        name: 'submission_outbox_oldest_age_seconds',
        help: 'Seconds since the oldest unsettled invoice of the submission outbox was stored; 0 when there is none',
        registers: [registry],
        async collect() {
          const { oldestOpenAt } = await stats();
          this.set(oldestOpenAt === null ? 0 : Math.max(0, (now() - oldestOpenAt) / 1000));
        },
      });
    },
    retentionPruned(step, count) {
      pruned.inc({ step }, count);
    },
    retentionBatch(step, ms) {
      batches.observe({ step }, ms / 1000);
    },
    eventSettled(state, action, seconds) {
      // Unknown actions are not a label value: the service may invent many.
      settled.inc({ state, action: isKnownAction(action) ? action : 'unknown' });
      handling.observe(seconds);
    },
    webhookReceived(outcome, seconds) {
      requests.inc({ outcome });
      duration.observe(seconds);
    },
    trackStore(store) {
      metrics.trackInbox(store.events);
      metrics.trackSinkOutbox(store.sinkOutbox);
      metrics.trackSubmissions(store.submissions);
    },
    trackInbox(events) {
      const count = sharedReading(() => events.countOpen());
      new Gauge({
        name: 'inbox_events',
        help: 'Open events of the inbox (still to be handled), by state (pending, processing); dead ones are inbox_dead_events',
        labelNames: ['state'] as const,
        registers: [registry],
        async collect() {
          const { pending, processing } = await count();
          this.set({ state: 'pending' }, pending);
          this.set({ state: 'processing' }, processing);
        },
      });
      new Gauge({
        name: 'inbox_dead_events',
        help: 'Dead events: failed for the last allowed time, kept for an operator until retention deletes them (RETENTION_EVENT_DAYS after arrival once their message is settled, RETENTION_DEAD_DAYS otherwise)',
        registers: [registry],
        async collect() {
          this.set((await count()).dead);
        },
      });
      // A stalled worker shows here even while the counts stand still (issue 26): pending
      // grows when no slot frees, processing when a handler is stuck in its turn.
      new Gauge({
        name: 'inbox_oldest_event_age_seconds',
        help: 'Seconds since the oldest pending event was received (pending), and since the processing event claimed longest ago was claimed (processing); 0 when there is none',
        labelNames: ['state'] as const,
        registers: [registry],
        async collect() {
          const oldest = await events.oldestOpen();
          const at = now();
          for (const state of ['pending', 'processing'] as const) {
            const since = oldest[state];
            this.set({ state }, since === null ? 0 : Math.max(0, (at - since) / 1000));
          }
        },
      });
    },
    trackAdmission(admission) {
      new Gauge({
        name: 'webhook_connections_open',
        help: 'Open connections of the webhook listener',
        registers: [registry],
        collect() {
          this.set(admission.stats().connections);
        },
      });
      new Gauge({
        name: 'webhook_body_bytes_reserved',
        help: 'Body bytes held by webhook requests being read or handled, counted as they arrive',
        registers: [registry],
        collect() {
          this.set(admission.stats().inflightBytes);
        },
      });
    },
  };
  return metrics;
}

/**
 * One store read for all the gauges of a scrape, which collects them at once: a caller that
 * comes while a read is in flight shares it; the next scrape reads again.
 */
function sharedReading<T>(read: () => Promise<T>): () => Promise<T> {
  let reading: Promise<T> | undefined;
  return () => {
    reading ??= read().finally(() => {
      reading = undefined;
    });
    return reading;
  };
}
