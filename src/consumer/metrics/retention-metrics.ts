/** The retention job's metrics: what each step removed, and how long each batch held the store. */
import { Counter, Histogram, type Registry } from 'prom-client';

export interface RetentionMetrics {
  /** What a retention run removed, by step (rows; pages for `pages`). */
  retentionPruned(step: string, count: number): void;
  /** How long one retention batch held the store (PruneBatch.ms). */
  retentionBatch(step: string, ms: number): void;
}

export function createRetentionMetrics(registry: Registry): RetentionMetrics {
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
  return {
    retentionPruned(step, count) {
      pruned.inc({ step }, count);
    },
    retentionBatch(step, ms) {
      batches.observe({ step }, ms / 1000);
    },
  };
}
