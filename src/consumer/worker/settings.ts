/** The worker's configuration section (docs/configuration.md#worker). */
import type { Reader } from '../settings/reader.ts';

export interface WorkerSettings {
  /**
   * Messages handled at once (the worker, and each reconciliation run). Each waits on the
   * messaging API and the store most of its time, so many at once cost little CPU and share
   * the store's commits. @default 32
   */
  workerConcurrency: number;
  /**
   * Attempts before an event is dead-lettered: the retry budget. With the default backoff, ten
   * attempts span about 15 minutes. @default 10
   */
  workerMaxAttempts: number;
  /**
   * Longest wait between two attempts of a failed event (the backoff doubles from 2 s up to
   * this). Raise it with WORKER_MAX_ATTEMPTS to ride out a longer outage of your ERP.
   * @default 300000 (5 minutes)
   */
  workerBackoffMaxMs: number;
}

export function readWorkerSettings(read: Reader): WorkerSettings {
  return {
    workerConcurrency: read.integer('WORKER_CONCURRENCY', 32, { min: 1, max: 1000 }),
    workerMaxAttempts: read.integer('WORKER_MAX_ATTEMPTS', 10, { min: 1 }),
    workerBackoffMaxMs: read.integer('WORKER_BACKOFF_MAX_MS', 300_000, {
      min: 2_000,
      max: 86_400_000,
    }),
  };
}
