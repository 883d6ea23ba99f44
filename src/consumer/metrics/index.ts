/**
 * Prometheus metrics of the consumer, on a registry of its own (no global state). Each concern
 * defines its metrics in a file of this folder (webhooks, events, retention, the status sink,
 * submissions, the inbox); this composes them on one registry.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Store } from '../store/store.ts';
import { createEventMetrics, type EventMetrics } from './event-metrics.ts';
import { createInboxMetrics, type InboxMetrics } from './inbox-metrics.ts';
import { createRetentionMetrics, type RetentionMetrics } from './retention-metrics.ts';
import { createSinkMetrics, type SinkMetrics } from './sink-metrics.ts';
import { createSubmissionMetrics, type SubmissionMetrics } from './submission-metrics.ts';
import { createWebhookMetrics, type WebhookMetrics } from './webhook-metrics.ts';

export type { WebhookOutcome } from './webhook-metrics.ts';

export interface Metrics
  extends WebhookMetrics,
    EventMetrics,
    RetentionMetrics,
    InboxMetrics,
    SinkMetrics,
    SubmissionMetrics {
  readonly registry: Registry;
  /** The gauges of the inbox, the sink outbox and the submission outbox, read from one store. */
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
  // A scrape lists the metrics in the order they are registered: these calls keep it.
  const metrics: Metrics = {
    registry,
    ...createWebhookMetrics(registry),
    ...createEventMetrics(registry),
    ...createRetentionMetrics(registry),
    ...createSinkMetrics(registry, now),
    ...createSubmissionMetrics(registry, now),
    ...createInboxMetrics(registry, now),
    trackStore(store) {
      metrics.trackInbox(store.events);
      metrics.trackSinkOutbox(store.sinkOutbox);
      metrics.trackSubmissions(store.submissions);
    },
  };
  return metrics;
}
