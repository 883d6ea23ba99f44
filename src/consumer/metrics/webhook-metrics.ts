/**
 * The webhook listener's metrics: each request by outcome and how long its answer took, and
 * gauges of the listener's limits (connections, body bytes held), read on scrape.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

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

export interface WebhookMetrics {
  webhookReceived(outcome: WebhookOutcome, seconds: number): void;
  /** Gauges of the webhook listener's limits (WEBHOOK_MAX_CONNECTIONS, ..._INFLIGHT_BYTES). */
  trackAdmission(admission: { stats(): { connections: number; inflightBytes: number } }): void;
}

export function createWebhookMetrics(registry: Registry): WebhookMetrics {
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
  return {
    webhookReceived(outcome, seconds) {
      requests.inc({ outcome });
      duration.observe(seconds);
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
}
