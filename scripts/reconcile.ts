#!/usr/bin/env node
/**
 * `npm run reconcile`: one reconciliation run, for cron. Prints one summary line and exits 0
 * when everything went well, 1 when a message could not be handled, 2 on a configuration or
 * start-up error. Safe to run while the consumer runs, and beside another reconciliation:
 * every message is handled under its claim (src/consumer/reconcile/reconciler.ts). It needs the messaging
 * API, the consumer's database and the importer, not the webhook settings.
 */
import 'dotenv/config';
import { type ApiClient, createApiClient } from '../src/consumer/api/index.ts';
import { createClaimHolder } from '../src/consumer/claims/claim-holder.ts';
import { apiClientOptions, spoolDirOf } from '../src/consumer/config.ts';
import { createLogger } from '../src/consumer/logger.ts';
import { createReconciler, formatSummary } from '../src/consumer/reconcile/reconciler.ts';
import { readSetup } from '../src/consumer/setup.ts';
import { MissingDatabaseError, openStore } from '../src/consumer/store/open-store.ts';
import type { Store } from '../src/consumer/store/store.ts';
import { localProcess } from '../src/local-process.ts';
import { stopTracing } from '../src/tracing/start-tracing.ts';

// Stopping a run at any point is safe (claims expire, imports are staged), so SIGTERM ends it
// at once, also as PID 1 in a container, where Node would otherwise ignore the signal.
process.on('SIGTERM', () => process.exit(143));

const read = await readSetup(process.env, { webhooks: false });
if ('error' in read) {
  console.error(read.error);
  process.exit(2);
}
const { config, importer: chosen } = read.setup;
const logger = createLogger(config.logLevel);
// Closed whatever happens: an open store (its writer thread) or connection pool would keep a
// failed run (a refused API token, say) alive for good, holding its cron slot.
let store: Store | undefined;
let api: ApiClient | undefined;
try {
  store = await openStore(config.databaseUrl, { poolSize: config.databasePoolSize, create: false });
  api = createApiClient(apiClientOptions(config, { spoolDir: spoolDirOf(config), logger }));
  const reconcile = createReconciler({
    api,
    importer: await chosen.create({ logger, documentsDir: config.documentsDir }),
    messages: store.messages,
    events: store.events,
    claims: store.claims,
    logger,
    now: Date.now,
    holder: createClaimHolder('reconcile', localProcess()).id,
    leaseMs: config.claimLeaseMs,
    importTimeoutMs: config.importTimeoutMs,
    concurrency: config.workerConcurrency,
  });
  const summary = await reconcile();
  console.log(`reconcile: ${formatSummary(summary)}`);
  process.exitCode = summary.failed > 0 ? 1 : 0;
} catch (error) {
  if (error instanceof MissingDatabaseError) {
    console.error(`reconcile: ${error.message}`);
    process.exitCode = 2;
  } else {
    logger.fatal({ err: error }, 'reconcile failed');
    console.error(`reconcile: failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
} finally {
  await api?.close();
  await store?.close();
  // The batch of this run's spans, exported before the process ends (a no-op without tracing).
  await stopTracing();
}
