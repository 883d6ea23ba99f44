/**
 * The worker as the consumer runs it: the event handler (handle-event.ts) on the store, the
 * messaging API and the importer, in the claim loop (worker.ts), with the retry budget and
 * backoff of the configuration. When ingress and worker share one process (ROLE=all) the
 * pacer (pacer.ts) makes the worker yield to webhooks.
 */
import type { Logger } from 'pino';
import type { ApiClient } from '../api/index.ts';
import type { ClaimHolder } from '../claims/claim-holder.ts';
import type { ClaimSettings } from '../claims/settings.ts';
import type { Importer } from '../importer/importer.ts';
import type { ImporterSettings } from '../importer/settings.ts';
import { eventRetryDelay } from '../loop/backoff.ts';
import type { RetentionSettings } from '../retention/settings.ts';
import type { Store } from '../store/store.ts';
import { createEventHandler } from './handle-event.ts';
import { createPacer, type Pacer } from './pacer.ts';
import type { WorkerSettings } from './settings.ts';
import { createWorker, type Worker, type WorkerOptions } from './worker.ts';

export interface EventWorker extends Worker {
  /** A webhook was stored by this process: the pacer yields to such bursts. */
  webhookStored(): void;
  /** Stops sampling the event loop (the pacer): the last step of a shutdown. */
  dispose(): void;
}

export interface EventWorkerDeps {
  config: WorkerSettings &
    ClaimSettings &
    Pick<ImporterSettings, 'importTimeoutMs'> &
    RetentionSettings;
  store: Pick<Store, 'events' | 'claims' | 'messages' | 'submissions'>;
  api: ApiClient;
  importer: Importer;
  logger: Logger;
  holder: ClaimHolder;
  now: () => number;
  /** Whether a webhook ingress shares this event loop (ROLE=all with the worker running). */
  paced: boolean;
  onSettled: WorkerOptions['onSettled'];
  /** Worker tuning for tests (poll interval, retry delay, lease). */
  tuning?: Pick<WorkerOptions, 'pollIntervalMs' | 'retryDelay' | 'leaseMs'> | undefined;
}

export function createEventWorker(deps: EventWorkerDeps): EventWorker {
  const { config, store, logger, holder, now } = deps;
  let webhooksStored = 0;
  const pacer: Pacer | undefined = deps.paced
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
      api: deps.api,
      importer: deps.importer,
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
    ...(deps.onSettled === undefined ? {} : { onSettled: deps.onSettled }),
    ...deps.tuning,
  });
  return {
    ...worker,
    webhookStored() {
      webhooksStored += 1;
    },
    dispose() {
      pacer?.stop();
    },
  };
}
