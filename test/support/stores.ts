/**
 * Both stores behind the one contract (src/consumer/store/store.ts), for the contract tests:
 * each suite runs once per store, from the same file. PostgreSQL is skipped with the reason
 * where no server is available (never in CI).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe } from 'vitest';
import { createPostgresRetentionStore } from '../../src/consumer/store/postgres/pg-retention.ts';
import { openPostgresStore } from '../../src/consumer/store/postgres/pg-store.ts';
import type { RetentionStore } from '../../src/consumer/store/retention.ts';
import { retentionWrites } from '../../src/consumer/store/sqlite/sqlite-retention.ts';
import { openSqliteStore } from '../../src/consumer/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/consumer/store/store.ts';
import { createTestDatabase, POSTGRES_MISSING, POSTGRES_URL } from './postgres.ts';
import { describeIfAvailable } from './requirement.ts';

export type DisposableStore = Store & {
  /** Empties every table, as a fresh store would be (cheaper than opening another). */
  reset(): Promise<void>;
  dispose(): Promise<void>;
};

const TABLES = [
  'events',
  'messages',
  'status_changes',
  'message_claims',
  'seen_events',
  'retention_marks',
  'sink_outbox',
  'submissions',
];

export interface StoreKind {
  name: 'sqlite' | 'postgres';
  /** A fresh, empty, migrated store. */
  open(): Promise<DisposableStore>;
  /** A second store on the same database: another process, as far as the store can tell. */
  openAnother(store: DisposableStore): Promise<DisposableStore>;
  /**
   * The store's retention on its database timed by `clock` (ms) instead of the real one, to
   * play batches whose rows are slow; close() when done.
   */
  clockedRetention(
    store: DisposableStore,
    clock: () => number,
  ): RetentionStore & { close(): Promise<void> };
}

const locations = new WeakMap<Store, string>();

export const SQLITE: StoreKind = {
  name: 'sqlite',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'store-test-'));
    const store = await openSqliteStore(join(dir, 'consumer.db'));
    locations.set(store, join(dir, 'consumer.db'));
    return Object.assign(store, {
      async reset() {
        store.db.exec(TABLES.map((table) => `DELETE FROM ${table};`).join(' '));
      },
      async dispose() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    });
  },
  async openAnother(store) {
    const another = await openSqliteStore(locations.get(store) as string);
    return Object.assign(another, { reset: () => store.reset(), dispose: () => another.close() });
  },
  clockedRetention(store, clock) {
    // The writer thread's retention, run on a connection of the test's own (the file is in WAL
    // mode: it takes turns with the writer thread's connection as another process would).
    const db = new Database(locations.get(store) as string);
    db.pragma('busy_timeout = 5000');
    const writes = retentionWrites(db, clock);
    return {
      dropBodies: async (...args) => writes.dropBodies(...args),
      pruneEvents: async (...args) => writes.pruneEvents(...args),
      pruneDeadEvents: async (...args) => writes.pruneDeadEvents(...args),
      forgetEventIds: async (...args) => writes.forgetEventIds(...args),
      pruneMessages: async (...args) => writes.pruneMessages(...args),
      pruneNotices: async (...args) => writes.pruneNotices(...args),
      pruneSubmissions: async (...args) => writes.pruneSubmissions(...args),
      reclaim: async (...args) => writes.reclaim(...args),
      close: async () => {
        db.close();
      },
    };
  },
};

export const POSTGRES: StoreKind = {
  name: 'postgres',
  async open() {
    const database = await createTestDatabase();
    const store = await openPostgresStore(database.url);
    locations.set(store, database.url);
    return Object.assign(store, {
      async reset() {
        await store.pool.query(`TRUNCATE ${TABLES.join(', ')}`);
      },
      async dispose() {
        await store.close();
        await database.drop();
      },
    });
  },
  async openAnother(store) {
    const another = await openPostgresStore(locations.get(store) as string);
    return Object.assign(another, { reset: () => store.reset(), dispose: () => another.close() });
  },
  clockedRetention(store, clock) {
    const { pool } = store as DisposableStore & { pool: pg.Pool };
    return { ...createPostgresRetentionStore(pool, clock), close: async () => {} };
  },
};

/** `describe(name)` once per store; PostgreSQL's is skipped, with the reason, when missing. */
export function describeEachStore(name: string, body: (kind: StoreKind) => void) {
  describe(`${name} (sqlite)`, () => body(SQLITE));
  describeIfAvailable(
    `${name} (postgres)`,
    POSTGRES_URL === '' ? POSTGRES_MISSING : undefined,
    () => body(POSTGRES),
  );
}

/**
 * Gives each test of a suite an empty store of `kind`: one store, opened before the first test
 * and emptied before each (cheaper than opening one per test), disposed of after the last.
 * `assign` receives it once open, for the suite's tests and helpers to reach.
 */
export function useEmptyStore(kind: StoreKind, assign: (store: DisposableStore) => void): void {
  let store: DisposableStore;
  beforeAll(async () => {
    store = await kind.open();
    assign(store);
  });
  beforeEach(async () => {
    await store.reset();
  });
  afterAll(async () => {
    await store.dispose();
  });
}
