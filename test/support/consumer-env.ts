/**
 * The settings of a consumer process a test (or a benchmark) starts, as the variables it reads
 * (docs/configuration.md): its files all in one folder of the test's, so that removing the
 * folder removes them, and its messaging API the embedded provider. Free of vitest: bench/
 * loads it under plain Node.
 */
import { join } from 'node:path';

/**
 * DATABASE_URL, DOCUMENTS_DIR and SINK_JOURNAL_FILE under `dir`; the database is a SQLite file
 * there unless `databaseUrl` names another (a PostgreSQL database the replicas share).
 */
export function consumerFilesEnv(
  dir: string,
  databaseUrl = `sqlite:${join(dir, 'consumer.db')}`,
): { DATABASE_URL: string; DOCUMENTS_DIR: string; SINK_JOURNAL_FILE: string } {
  return {
    DATABASE_URL: databaseUrl,
    DOCUMENTS_DIR: join(dir, 'documents'),
    SINK_JOURNAL_FILE: join(dir, 'status-journal.jsonl'),
  };
}

/**
 * A consumer beside the embedded provider at `apiBaseUrl`, verifying webhooks with `secret`,
 * its files under `dir` (consumerFilesEnv): what the process tests start it with before the
 * settings of their own (LOG_LEVEL, the importer, leases).
 */
export function sandboxConsumerEnv(options: {
  secret: string;
  apiBaseUrl: string;
  dir: string;
  /** @default a SQLite file in `dir` */
  databaseUrl?: string;
}): Record<string, string> {
  return {
    WEBHOOK_SECRETS: options.secret,
    API_BASE_URL: options.apiBaseUrl,
    // The simulator's default token (DEFAULT_API_TOKEN of src/provider/provider.ts), spelt out
    // here: loading the simulator for one string would cost bench/ processes their start.
    API_TOKEN: 'sandbox-token',
    ...consumerFilesEnv(options.dir, options.databaseUrl),
  };
}
