/**
 * Starts the consumer from its capabilities: the store, the metrics, the messaging API client,
 * the background work (background.ts: worker, sink and submission loops, retention) and the
 * HTTP ingress (http/ingress.ts), as one object with one close(). main.ts calls it for
 * production, scripts/dev.ts for the sandbox, and end-to-end tests directly.
 */
import type { Logger } from 'pino';
import { type ApiClient, createApiClient } from './api/index.ts';
import { apiClientOptions } from './api/settings.ts';
import { type Background, type BackgroundTuning, createBackground } from './background.ts';
import { type ClaimHolder, createAnonymousHolder } from './claims/claim-holder.ts';
import { type Config, configWarnings, spoolDirOf } from './config.ts';
import { createAdmission } from './http/admission.ts';
import { createIngress, type Ingress } from './http/ingress.ts';
import type { Importer } from './importer/index.ts';
import { createMetrics, type Metrics } from './metrics/index.ts';
import type { StatusSink } from './sink/define-sink.ts';
import { openStore } from './store/open-store.ts';
import type { Store } from './store/store.ts';
import type { Worker } from './worker/worker.ts';

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

export interface StartConsumerOptions extends BackgroundTuning {
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
  /** Start the worker with the listener. @default true unless ROLE is `ingress` */
  startWorker?: boolean;
  /**
   * Names this process in message claims; the entry point passes one that knows its host's
   * processes (claims/claim-holder.ts). @default a random holder that leaves claims to leases
   */
  holder?: ClaimHolder;
}

export async function startConsumer(options: StartConsumerOptions): Promise<RunningConsumer> {
  const { config, logger } = options;
  const now = options.now ?? Date.now;
  for (const warning of configWarnings(config)) logger.warn(warning);
  // A process of a role with a worker is not ready while its worker is not running.
  const hasWorker = config.role !== 'ingress';
  const runWorker = options.startWorker ?? hasWorker;
  const store = await openStore(config.databaseUrl, { poolSize: config.databasePoolSize });
  const metrics = createMetrics({ now });
  metrics.trackStore(store);
  const api = createApiClient(apiClientOptions(config, { spoolDir: spoolDirOf(config), logger }));
  const background = createBackground({
    config,
    logger,
    store,
    api,
    importer: options.importer,
    sink: options.sink,
    metrics,
    holder: options.holder ?? createAnonymousHolder('consumer'),
    now,
    // Ingress and worker in one process share the event loop: the worker yields to webhooks.
    paced: runWorker && config.role === 'all',
    tuning: options,
  });
  const { worker } = background;
  const admission = createAdmission({
    maxConnections: config.webhookMaxConnections,
    maxInflightBytes: config.webhookMaxInflightBytes,
  });
  metrics.trackAdmission(admission);
  const ingress = createIngress({
    config,
    store,
    logger,
    metrics,
    now,
    admission,
    ...(options.host === undefined ? {} : { host: options.host }),
    onEventStored: () => background.eventStored(),
    onSubmissionStored: () => background.submissionStored(),
    readinessChecks: [
      { name: 'store', check: () => store.checkWritable() },
      ...(hasWorker ? [{ name: 'worker', check: () => checkRunning(worker) }] : []),
    ],
  });
  try {
    await ingress.start();
  } catch (error) {
    background.dispose();
    await store.close();
    throw error;
  }
  if (runWorker) await background.start();
  const { webhook, operations } = ingress;
  logger.info(
    {
      url: webhook.url,
      webhookPath: config.webhookPath,
      ...(operations === undefined ? {} : { operationsUrl: operations.url }),
      store: store.kind,
    },
    'consumer listening',
  );
  return {
    url: webhook.url,
    port: webhook.port,
    ...(operations === undefined
      ? {}
      : { operationsUrl: operations.url, operationsPort: operations.port }),
    store,
    metrics,
    worker,
    api,
    close: createClose({ config, logger, ingress, background, api, store }),
  };
}

function checkRunning(worker: Worker): void {
  if (!worker.isRunning()) throw new Error('worker is not running');
}

/**
 * One deadline for the listeners and the background work together: an orchestrator kills
 * the process soon after SIGTERM. Work cut off here is safe: a claimed event is taken over
 * when its claim ends (at the next start on this host, or after CLAIM_LEASE_MS), and imports
 * and acknowledgements are idempotent.
 */
function createClose(parts: {
  config: Pick<Config, 'shutdownTimeoutMs'>;
  logger: Logger;
  ingress: Ingress;
  background: Background;
  api: ApiClient;
  store: Store;
}): () => Promise<{ forced: boolean }> {
  const { logger, ingress, background, api, store } = parts;
  let closing: Promise<{ forced: boolean }> | undefined;
  const close = async () => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      timer = setTimeout(() => resolve('deadline'), parts.config.shutdownTimeoutMs);
    });
    const closed = ingress.close();
    const stopped = Promise.all([closed, background.stop()]);
    const forced = (await Promise.race([stopped, deadline])) === 'deadline';
    clearTimeout(timer);
    if (forced) {
      logger.warn('shutdown deadline reached; cutting connections and events in hand');
      background.abort();
      ingress.cut();
      await closed;
    }
    // A request still hanging would hold a graceful close; after the deadline, don't wait.
    if (forced) void api.close();
    else await api.close();
    background.dispose();
    await store.close();
    logger.info({ forced }, 'consumer stopped');
    return { forced };
  };
  return () => {
    closing ??= close();
    return closing;
  };
}
