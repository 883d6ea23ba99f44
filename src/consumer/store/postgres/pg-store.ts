/**
 * The PostgreSQL store, for several consumer replicas sharing one database (DATABASE_URL
 * postgres://...). The same contract as the SQLite store (../store.ts), kept by the database:
 * inserts are durable when their statement commits (synchronous_commit as configured on the
 * server, on by default), claims are atomic across replicas (FOR UPDATE SKIP LOCKED and the
 * claim upsert), and other replicas hear of new events through LISTEN/NOTIFY.
 */
import type pg from 'pg';
import { withDeadline } from '../deadline.ts';
import { type Store, StoreError } from '../store.ts';
import { createInboxListener } from './inbox-listener.ts';
import { migrate } from './migrate.ts';
import { createPostgresClaimStore } from './pg-claims.ts';
import { createPostgresEventStore } from './pg-events.ts';
import { createPostgresMessageStore } from './pg-messages.ts';
import { createPostgresRetentionStore } from './pg-retention.ts';
import { createPool } from './pool.ts';

export interface PostgresStore extends Store {
  readonly kind: 'postgres';
  /** For tests and tools that look at rows directly. */
  readonly pool: pg.Pool;
}

export interface PostgresStoreOptions {
  /** Connections of the pool (DATABASE_POOL_SIZE). @default 10 */
  poolSize?: number;
  /** See SqliteStoreOptions.commitTimeoutMs. @default 2000 */
  commitTimeoutMs?: number;
}

export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<PostgresStore> {
  const commitTimeoutMs = options.commitTimeoutMs ?? 2000;
  const pool = createPool(url, options.poolSize ?? 10);
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const events = createPostgresEventStore(pool);
  const listener = createInboxListener(url);
  return {
    kind: 'postgres',
    pool,
    events: {
      ...events,
      async insert(event) {
        try {
          return await withDeadline(events.insert(event), commitTimeoutMs);
        } catch (error) {
          throw new StoreError(`Could not store event ${event.eventId}`, { cause: error });
        }
      },
    },
    claims: createPostgresClaimStore(pool),
    messages: createPostgresMessageStore(pool),
    retention: createPostgresRetentionStore(pool),
    async checkWritable() {
      await withDeadline(
        pool.query('UPDATE health SET checked_at = $1 WHERE id = 1', [Date.now()]),
        commitTimeoutMs,
      );
    },
    onNewEvents: (callback) => listener.subscribe(callback),
    async close() {
      await listener.close();
      await pool.end();
    },
  };
}
