/**
 * What a consumer process does besides answering webhooks, as one capability: the worker
 * (worker/event-worker.ts), and beside it the status sink's loop (sink/sink-worker.ts), the
 * submission outbox's loop (submit/submission-worker.ts), retention (retention/schedule.ts)
 * and, on PostgreSQL, the wake-up when another replica stores an event. They run where the
 * worker does; on PostgreSQL every replica's, taking turns through leases.
 */
import type { Logger } from 'pino';
import type { ApiClient } from './api/index.ts';
import type { ClaimHolder } from './claims/claim-holder.ts';
import type { Config } from './config.ts';
import type { Importer } from './importer/importer.ts';
import type { Metrics } from './metrics/index.ts';
import { createPruner } from './retention/pruner.ts';
import { scheduleRetention } from './retention/schedule.ts';
import type { StatusSink } from './sink/define-sink.ts';
import { createSinkWorker, type SinkWorkerOptions } from './sink/sink-worker.ts';
import type { Store } from './store/store.ts';
import {
  createSubmissionWorker,
  type SubmissionWorkerOptions,
} from './submit/submission-worker.ts';
import { createEventWorker, type EventWorker } from './worker/event-worker.ts';
import type { WorkerOptions } from './worker/worker.ts';

/** Loop tuning for tests: poll intervals and retry delays. */
export interface BackgroundTuning {
  worker?: Pick<WorkerOptions, 'pollIntervalMs' | 'retryDelay' | 'leaseMs'>;
  sinkWorker?: Pick<SinkWorkerOptions, 'pollMs' | 'retryBaseMs' | 'retryMaxMs'>;
  submissionWorker?: Pick<
    SubmissionWorkerOptions,
    'pollMs' | 'retryBaseMs' | 'retryMaxMs' | 'lookupDelayMs'
  >;
}

export interface BackgroundDeps {
  config: Config;
  store: Store;
  api: ApiClient;
  importer: Importer;
  /** Without one, notices wait in the outbox for a process that has one. */
  sink: StatusSink | undefined;
  logger: Logger;
  metrics: Metrics;
  holder: ClaimHolder;
  now: () => number;
  /** Whether a webhook ingress shares this process's event loop (the worker yields to it). */
  paced: boolean;
  tuning: BackgroundTuning;
}

export interface Background {
  /** Created whether or not it runs: tests start and drain it themselves. */
  readonly worker: EventWorker;
  /** Starts the worker, then the loops beside it. */
  start(): Promise<void>;
  /** A webhook was stored here: wake the worker. */
  eventStored(): void;
  /** A submission was stored here: wake its loop. */
  submissionStored(): void;
  /** Stops each loop after the work in hand. */
  stop(): Promise<void>;
  /**
   * Tells the worker's handlers and the sink's deliveries in hand to give up now (a shutdown
   * past its deadline).
   */
  abort(): void;
  /** Releases what outlives stop(): the wake-up listener, the pacer. */
  dispose(): void;
}

export function createBackground(deps: BackgroundDeps): Background {
  const { config, store, api, importer, logger, holder, now, paced } = deps;
  const worker = createEventWorker({
    config,
    store,
    api,
    importer,
    logger,
    holder,
    now,
    paced,
    onSettled: (event, state, seconds) => deps.metrics.eventSettled(state, event.action, seconds),
    tuning: deps.tuning.worker,
  });
  let loops: ReturnType<typeof startLoops> | undefined;
  let stopListening: (() => void) | undefined;
  return {
    worker,
    async start() {
      await worker.start();
      loops = startLoops(deps);
      // Events another replica stored wake this worker at once (PostgreSQL); polling backs it up.
      stopListening = deps.store.onNewEvents?.(() => worker.notify());
    },
    eventStored() {
      worker.webhookStored();
      worker.notify();
    },
    submissionStored: () => loops?.submissions.notify(),
    async stop() {
      await Promise.all([
        worker.stop(),
        loops?.retention?.stop(),
        loops?.sink?.stop(),
        loops?.submissions.stop(),
      ]);
    },
    abort() {
      worker.abort();
      loops?.sink?.abort();
    },
    dispose() {
      worker.dispose();
      stopListening?.();
    },
  };
}

function startLoops(deps: BackgroundDeps) {
  const { config, store, logger, metrics, now } = deps;
  const sink =
    deps.sink === undefined
      ? undefined
      : createSinkWorker({
          outbox: store.sinkOutbox,
          sink: deps.sink,
          logger: logger.child({ component: 'sink' }),
          now,
          concurrency: config.sinkConcurrency,
          // The lease follows from it (sinkLeaseMs): a notice in hand is never handed to
          // another replica while this one may still be waiting for the sink.
          deliveryTimeoutMs: config.sinkDeliveryTimeoutMs,
          onDelivery: (outcome, ms) => metrics.sinkDelivery(outcome, ms),
          ...deps.tuning.sinkWorker,
        });
  sink?.start();
  // The submission outbox's loop (docs/submissions.md).
  const submissions = createSubmissionWorker({
    submissions: store.submissions,
    api: deps.api,
    logger: logger.child({ component: 'submissions' }),
    now,
    // Longer than any attempt can last (API_DEADLINE_MS bounds a call, retries included)
    // plus the lookup delay: another process never takes an invoice whose attempt is
    // still out, and after a crash the lookup waits as long as after a lost reply.
    leaseMs: config.apiDeadlineMs + config.submissionLookupDelayMs + 1_000,
    lookupDelayMs: config.submissionLookupDelayMs,
    onOutcome: (outcome) => metrics.submissionOutcome(outcome),
    ...deps.tuning.submissionWorker,
  });
  submissions.start();
  // One pruner per deployment on SQLite (one writer anyway); on PostgreSQL the replicas take
  // turns (pg-retention.ts).
  const forget = deps.importer.forget?.bind(deps.importer);
  const retention =
    config.retention === undefined
      ? undefined
      : scheduleRetention({
          pruner: createPruner({
            store,
            policy: config.retention,
            logger,
            now,
            onPruned: (step, count) => metrics.retentionPruned(step, count),
            onBatch: (step, ms) => metrics.retentionBatch(step, ms),
            ...(forget === undefined
              ? {}
              : {
                  forget: ({ messageId, transfer, importLocation }) =>
                    forget({ messageId, transfer, location: importLocation }),
                }),
          }),
          intervalMs: config.retentionIntervalSeconds * 1000,
          logger,
        });
  return { sink, submissions, retention };
}
