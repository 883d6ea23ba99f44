/** Starts a real consumer on a free port with a fresh SQLite file in a temporary folder. */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import { createClaimHolder } from '../../src/consumer/claims/claim-holder.ts';
import { loadConfig } from '../../src/consumer/config.ts';
import { type RunningConsumer, startConsumer } from '../../src/consumer/consumer.ts';
import { createFileImporter, type Importer } from '../../src/consumer/importer/index.ts';
import { createLogger } from '../../src/consumer/logger.ts';
import type { StatusSink } from '../../src/consumer/sink/define-sink.ts';
import type { SinkWorkerOptions } from '../../src/consumer/sink/sink-worker.ts';
import type { SqliteStore } from '../../src/consumer/store/sqlite/sqlite-store.ts';
import type { WorkerOptions } from '../../src/consumer/worker/worker.ts';

export const TEST_SECRET = 'whsec_integration_secret';

// Each consumer of a test stands for a process of its own: a made-up process id that is
// alive until the consumer closes, so a restart takes over its claims as a real one would.
const alive = new Set<number>();
let nextPid = 4_000_000;

export interface TestConsumer extends RunningConsumer {
  dir: string;
  store: SqliteStore;
  logs: Record<string, unknown>[];
  webhookUrl: string;
  stop(): Promise<void>;
}

export async function startTestConsumer(
  env: Record<string, string> = {},
  options: {
    now?: () => number;
    /** Off by default: ingress tests look at rows the worker would otherwise move on. */
    startWorker?: boolean;
    /** @default the file importer, writing under the test's folder */
    importer?: Importer;
    /** Reuse a folder (database, documents) of an earlier consumer: a restart. */
    dir?: string;
    worker?: Pick<WorkerOptions, 'pollIntervalMs' | 'retryDelay' | 'leaseMs'>;
    /** The status sink, and its loop's tuning; none by default (notices wait in the outbox). */
    sink?: StatusSink;
    sinkWorker?: Pick<SinkWorkerOptions, 'pollMs' | 'retryBaseMs' | 'retryMaxMs'>;
    /** The submission outbox loop's tuning. */
    submissionWorker?: Parameters<typeof startConsumer>[0]['submissionWorker'];
  } = {},
): Promise<TestConsumer> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'consumer-test-'));
  const config = loadConfig({
    PORT: '0',
    WEBHOOK_SECRETS: TEST_SECRET,
    API_BASE_URL: 'http://127.0.0.1:9',
    API_TOKEN: 'test-token',
    DATABASE_URL: `sqlite:${join(dir, 'consumer.db')}`,
    DOCUMENTS_DIR: join(dir, 'documents'),
    LOG_LEVEL: 'info',
    ...env,
  });
  const logs: Record<string, unknown>[] = [];
  const destination: DestinationStream = {
    write: (line: string) => {
      logs.push(JSON.parse(line));
    },
  };
  // The product's logger (redaction, and a span's trace_id and span_id on each line).
  const logger = createLogger(config.logLevel, destination);
  const pid = nextPid++;
  alive.add(pid);
  const holder = createClaimHolder('consumer', {
    hostname: 'test-host',
    pid,
    isAlive: (other) => alive.has(other),
  });
  const consumer = await startConsumer({
    config,
    logger,
    holder,
    host: '127.0.0.1',
    startWorker: options.startWorker ?? false,
    worker: { pollIntervalMs: 50, ...options.worker },
    ...(options.now === undefined ? {} : { now: options.now }),
    importer: options.importer ?? createFileImporter({ documentsDir: config.documentsDir, logger }),
    ...(options.sink === undefined ? {} : { sink: options.sink }),
    ...(options.sinkWorker === undefined ? {} : { sinkWorker: options.sinkWorker }),
    ...(options.submissionWorker === undefined
      ? {}
      : { submissionWorker: options.submissionWorker }),
  });
  return {
    ...consumer,
    store: consumer.store as SqliteStore,
    dir,
    logs,
    webhookUrl: `${consumer.url}${config.webhookPath}`,
    async close() {
      const closed = await consumer.close();
      alive.delete(pid);
      return closed;
    },
    async stop() {
      await consumer.close();
      alive.delete(pid);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function countEvents(store: SqliteStore): number {
  return (store.db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n;
}
