/**
 * The PostgreSQL store, for several consumer replicas sharing one database (DATABASE_URL
 * postgres://...). The same contract as the SQLite store (../store.ts), kept by the database:
 * inserts are durable when their statement commits (synchronous_commit as configured on the
 * server, on by default), claims are atomic across replicas (FOR UPDATE SKIP LOCKED and the
 * claim upsert), and other replicas hear of new events through LISTEN/NOTIFY.
 *
 * The database may go away and come back (a restart, a failover): every method then fails
 * with a StoreError (unavailable.ts) until it is back, and the pool, the LISTEN connection and
 * readiness recover by themselves (pool.ts, inbox-listener.ts).
 */
import type pg from 'pg';
import { commitDeadlineOf, createCommitDeadline, insertWithDeadline } from '../deadline.ts';
import type { Store } from '../store.ts';
import { createInboxListener } from './inbox-listener.ts';
import { migrate } from './migrate.ts';
import { createPostgresClaimStore } from './pg-claims.ts';
import { createPostgresEventStore } from './pg-events.ts';
import { createPostgresMessageStore } from './pg-messages.ts';
import { createPostgresRetentionStore } from './pg-retention.ts';
import { createPostgresSinkOutboxStore } from './pg-sink-outbox.ts';
import { createPostgresSubmissionStore } from './pg-submissions.ts';
import { createPool } from './pool.ts';
import { refuseTransactionPooling } from './pooler-check.ts';
import { explainTlsFailure } from './tls-failure.ts';
import { asStoreError, reportingUnavailable } from './unavailable.ts';

export interface PostgresStore extends Store {
  readonly kind: 'postgres';
  /** For tests and tools that look at rows directly. */
  readonly pool: pg.Pool;
}

export interface PostgresStoreOptions {
  /** Connections of the pool (DATABASE_POOL_SIZE). @default 10 */
  poolSize?: number;
  /** See SqliteStoreOptions.commitTimeoutMs. @default STORE_COMMIT_DEADLINE_MS (2000) */
  commitTimeoutMs?: number;
}

export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<PostgresStore> {
  const deadline = createCommitDeadline(commitDeadlineOf(options));
  // The first connection: where a TLS setting of DATABASE_URL that does not work shows.
  await refuseTransactionPooling(url).catch((error: unknown) => {
    throw explainTlsFailure(error);
  });
  await migrate(url);
  const pool = createPool(url, options.poolSize ?? 10);
  const events = reportingUnavailable(createPostgresEventStore(pool));
  const listener = createInboxListener(url);
  return {
    kind: 'postgres',
    pool,
    events: { ...events, insert: insertWithDeadline(events.insert, deadline) },
    claims: reportingUnavailable(createPostgresClaimStore(pool)),
    messages: reportingUnavailable(createPostgresMessageStore(pool)),
    retention: reportingUnavailable(createPostgresRetentionStore(pool)),
    sinkOutbox: reportingUnavailable(createPostgresSinkOutboxStore(pool)),
    submissions: reportingUnavailable(createPostgresSubmissionStore(pool)),
    async checkWritable() {
      await deadline(
        pool
          .query('UPDATE health SET checked_at = $1 WHERE id = 1', [Date.now()])
          .catch((error) => {
            throw asStoreError(error);
          }),
      );
    },
    onNewEvents: (callback) => listener.subscribe(callback),
    async close() {
      await listener.close();
      await pool.end();
    },
  };
}
