/**
 * Starts the consumer: store, HTTP app and listener, worker, as one object with one close(). main.ts
 * calls it for production, scripts/dev.ts for the sandbox, and end-to-end tests directly.
 */
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { type ApiClient, createApiClient } from './api/index.ts';
import { type ClaimHolder, createAnonymousHolder } from './claims/claim-holder.ts';
import { type Config, configWarnings, spoolDirOf } from './config.ts';
import { createAdmission } from './http/admission.ts';
import { type AppDeps, createApp } from './http/app.ts';
import { type Listener, listen } from './http/listen.ts';
import type { Importer } from './importer/index.ts';
import { eventRetryDelay } from './loop/backoff.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { createPruner } from './retention/pruner.ts';
import { scheduleRetention } from './retention/schedule.ts';
import type { StatusSink } from './sink/define-sink.ts';
import { createSinkWorker, type SinkWorkerOptions } from './sink/sink-worker.ts';
import { openStore } from './store/open-store.ts';
import type { Store } from './store/store.ts';
import {
  createSubmissionWorker,
  type SubmissionWorker,
  type SubmissionWorkerOptions,
} from './submit/submission-worker.ts';
import { createEventHandler } from './worker/handle-event.ts';
import { createPacer } from './worker/pacer.ts';
import { createWorker, type Worker, type WorkerOptions } from './worker/worker.ts';

export interface RunningConsumer {
  /** Base URL of the listener, e.g. http://127.0.0.1:3000 */
  url: string;
  port: number;
  /** Base URL of the operations listener when OPERATIONS_PORT is set. */
  operationsUrl?: string;
  operationsPort?: number;
  store: Store;
  metrics: Metrics;
  worker: Worker;
  api: ApiClient;
  /**
   * Stops accepting connections, lets in-flight requests finish (at most
   * config.shutdownTimeoutMs, then cuts them), closes the store. Safe to call twice.
   */
  close(): Promise<{ forced: boolean }>;
}

export async function startConsumer(options: {
  config: Config;
  logger: Logger;
  host?: string;
  now?: () => number;
  /**
   * Where documents go. Entry points create the configured one (IMPORTER_MODULE, setup.ts);
   * tests pass what they need.
   */
  importer: Importer;
  /**
   * Where status changes go (SINK_MODULE, setup.ts; docs/status-sink.md): delivered from the
   * store's outbox by a loop beside the worker. Without one, notices wait in the outbox for a
   * process that has one (tests that do not look at them).
   */
  sink?: StatusSink;
  /** Sink loop tuning for tests. */
  sinkWorker?: Pick<SinkWorkerOptions, 'pollMs' | 'retryBaseMs' | 'retryMaxMs'>;
  /** Submission loop tuning for tests. */
  submissionWorker?: Pick<
    SubmissionWorkerOptions,
    'pollMs' | 'retryBaseMs' | 'retryMaxMs' | 'lookupDelayMs'
  >;
  /** Start the worker with the listener. @default true unless ROLE is `ingress` */
  startWorker?: boolean;
  /** Worker tuning for tests (poll interval, retry delay). */
  worker?: Pick<WorkerOptions, 'pollIntervalMs' | 'retryDelay' | 'leaseMs'>;
  /**
   * Names this process in message claims; the entry point passes one that knows its host's
   * processes (claims/claim-holder.ts). @default a random holder that leaves claims to leases
   */
  holder?: ClaimHolder;
}): Promise<RunningConsumer> {
  const { config, logger } = options;
  // A process of a role with a worker is not ready while its worker is not running.
  const hasWorker = config.role !== 'ingress';
  const runWorker = options.startWorker ?? hasWorker;
  for (const warning of configWarnings(config)) logger.warn(warning);
  const now = options.now ?? Date.now;
  const { importer } = options;
  const store = await openStore(config.databaseUrl, { poolSize: config.databasePoolSize });
  const metrics = createMetrics({ now });
  metrics.trackInbox(store.events);
  metrics.trackSinkOutbox(store.sinkOutbox);
  metrics.trackSubmissions(store.submissions);
  const api = createApiClient({
    baseUrl: config.apiBaseUrl,
    token: config.apiToken,
    timeoutMs: config.apiTimeoutMs,
    deadlineMs: config.apiDeadlineMs,
    minBytesPerSecond: config.apiMinBytesPerSecond,
    maxDocumentBytes: config.apiMaxDocumentBytes,
    spoolDir: spoolDirOf(config),
    logger,
  });
  const holder = options.holder ?? createAnonymousHolder('consumer');
  // Ingress and worker in one process share the event loop: the worker yields to webhooks.
  let webhooksStored = 0;
  const pacer =
    runWorker && config.role === 'all'
      ? createPacer({
          max: config.workerConcurrency,
          webhooks: () => {
            const count = webhooksStored;
            webhooksStored = 0;
            return count;
          },
        })
      : undefined;
  const worker = createWorker({
    events: store.events,
    claims: store.claims,
    handle: createEventHandler({
      api,
      importer,
      messages: store.messages,
      events: store.events,
      submissions: store.submissions,
      logger,
      now,
      importTimeoutMs: config.importTimeoutMs,
    }),
    logger,
    holder: holder.id,
    holderGone: (other) => holder.isGone(other),
    now,
    concurrency: config.workerConcurrency,
    maxAttempts: config.workerMaxAttempts,
    retryDelay: (attempt) => eventRetryDelay(attempt, { maxMs: config.workerBackoffMaxMs }),
    leaseMs: config.claimLeaseMs,
    dropBodiesWhenDone: config.retention?.bodyDays === 0,
    ...(pacer === undefined ? {} : { limit: pacer.limit }),
    onSettled: (event, state, seconds) => metrics.eventSettled(state, event.action, seconds),
    ...options.worker,
  });
  const admission = createAdmission({
    maxConnections: config.webhookMaxConnections,
    maxInflightBytes: config.webhookMaxInflightBytes,
  });
  metrics.trackAdmission(admission);
  let submissionWorker: SubmissionWorker | undefined;
  const appDeps: AppDeps = {
    config,
    store,
    logger,
    metrics,
    onEventStored: () => {
      webhooksStored += 1;
      worker.notify();
    },
    onSubmissionStored: () => submissionWorker?.notify(),
    readinessChecks: [
      { name: 'store', check: () => store.checkWritable() },
      ...(hasWorker
        ? [
            {
              name: 'worker',
              check: () => {
                if (!worker.isRunning()) throw new Error('worker is not running');
              },
            },
          ]
        : []),
    ],
    now,
    admission,
  };

  // With OPERATIONS_PORT the webhook port serves the webhook path alone, so a gateway can
  // forward that port whole; health, metrics and admin answer on the other one.
  const host = options.host ?? '0.0.0.0';
  const listeners: Listener[] = [];
  try {
    if (config.role === 'worker') {
      // No webhooks here: the operations routes only, on OPERATIONS_PORT if set, else PORT.
      listeners.push(
        await listen(createApp({ ...appDeps, routes: 'operations' }), {
          port: config.operationsPort ?? config.port,
          host,
          variable: config.operationsPort === undefined ? 'PORT' : 'OPERATIONS_PORT',
        }),
      );
    } else {
      const split = config.operationsPort !== undefined;
      listeners.push(
        await listen(createApp({ ...appDeps, routes: split ? 'webhook' : 'all' }), {
          port: config.port,
          host,
          admission,
        }),
      );
      if (config.operationsPort !== undefined) {
        listeners.push(
          await listen(createApp({ ...appDeps, routes: 'operations' }), {
            port: config.operationsPort,
            host,
            variable: 'OPERATIONS_PORT',
          }),
        );
      }
    }
  } catch (error) {
    for (const { server } of listeners) server.close();
    await store.close();
    throw error;
  }
  const [webhook, operations] = listeners as [Listener, Listener | undefined];
  const servers: Server[] = listeners.map((listener) => listener.server);
  if (runWorker) await worker.start();
  // The status sink's loop runs where the worker does: on PostgreSQL every replica's, taking
  // turns through the outbox's leases.
  const sinkWorker =
    runWorker && options.sink !== undefined
      ? createSinkWorker({
          outbox: store.sinkOutbox,
          sink: options.sink,
          logger: logger.child({ component: 'sink' }),
          now,
          onDelivery: (outcome, ms) => metrics.sinkDelivery(outcome, ms),
          ...options.sinkWorker,
        })
      : undefined;
  sinkWorker?.start();
  // The submission outbox's loop too (docs/submissions.md); replicas take turns by lease.
  submissionWorker = runWorker
    ? createSubmissionWorker({
        submissions: store.submissions,
        api,
        logger: logger.child({ component: 'submissions' }),
        now,
        // Longer than any attempt can last (API_DEADLINE_MS bounds a call, retries included)
        // plus the lookup delay: another process never takes an invoice whose attempt is
        // still out, and after a crash the lookup waits as long as after a lost reply.
        leaseMs: config.apiDeadlineMs + config.submissionLookupDelayMs + 1_000,
        lookupDelayMs: config.submissionLookupDelayMs,
        onOutcome: (outcome) => metrics.submissionOutcome(outcome),
        ...options.submissionWorker,
      })
    : undefined;
  submissionWorker?.start();
  // Retention runs beside the worker: one per deployment on SQLite (one writer anyway), and on
  // PostgreSQL the replicas take turns (pg-retention.ts).
  const forget = importer.forget?.bind(importer);
  const retention =
    runWorker && config.retention !== undefined
      ? scheduleRetention({
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
        })
      : undefined;
  // Events another replica stored wake this worker at once (PostgreSQL); polling backs it up.
  const stopListening = runWorker ? store.onNewEvents?.(() => worker.notify()) : undefined;
  const { url, port } = webhook;
  logger.info(
    {
      url,
      webhookPath: config.webhookPath,
      ...(operations === undefined ? {} : { operationsUrl: operations.url }),
      store: store.kind,
    },
    'consumer listening',
  );

  let closing: Promise<{ forced: boolean }> | undefined;
  const close = () => {
    closing ??= (async () => {
      // One deadline for the listener and the worker together: an orchestrator kills the
      // process soon after SIGTERM. Work cut off here is safe: a claimed event is taken over
      // when its claim ends (at the next start on this host, or after CLAIM_LEASE_MS), and
      // imports and acknowledgements are idempotent.
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'deadline'>((resolve) => {
        timer = setTimeout(() => resolve('deadline'), config.shutdownTimeoutMs);
      });
      const closed = Promise.all(
        servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
      );
      for (const server of servers) server.closeIdleConnections();
      const stopped = Promise.all([
        closed,
        worker.stop(),
        retention?.stop(),
        sinkWorker?.stop(),
        submissionWorker?.stop(),
      ]);
      const forced = (await Promise.race([stopped, deadline])) === 'deadline';
      clearTimeout(timer);
      if (forced) {
        logger.warn('shutdown deadline reached; cutting connections and events in hand');
        worker.abort();
        for (const server of servers) server.closeAllConnections();
        await closed;
      }
      // A request still hanging would hold a graceful close; after the deadline, don't wait.
      if (forced) void api.close();
      else await api.close();
      pacer?.stop();
      stopListening?.();
      await store.close();
      logger.info({ forced }, 'consumer stopped');
      return { forced };
    })();
    return closing;
  };
  return {
    url,
    port,
    ...(operations === undefined
      ? {}
      : { operationsUrl: operations.url, operationsPort: operations.port }),
    store,
    metrics,
    worker,
    api,
    close,
  };
}
