/**
 * The embedded store: one SQLite file in WAL mode. synchronous=FULL makes every commit
 * durable before the 204 goes out; group commit (see group-commit.ts) pays for it.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Store } from '../store.ts';
import { migrate } from './migrate.ts';
import { createSqliteClaimStore } from './sqlite-claims.ts';
import { createSqliteEventStore } from './sqlite-events.ts';
import { createSqliteMessageStore } from './sqlite-messages.ts';

export interface SqliteStore extends Store {
  readonly kind: 'sqlite';
  /** The underlying connection, for the worker's queries and for tests. */
  readonly db: Database.Database;
}

export function openSqliteStore(path: string): SqliteStore {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // Another process (the reconcile command, a second connection) may hold the write lock
  // briefly; wait for it instead of failing.
  db.pragma('busy_timeout = 5000');
  migrate(db);
  const touch = db.prepare('UPDATE health SET checked_at = ? WHERE id = 1');
  return {
    kind: 'sqlite',
    db,
    events: createSqliteEventStore(db),
    claims: createSqliteClaimStore(db),
    messages: createSqliteMessageStore(db),
    async checkWritable() {
      touch.run(Date.now());
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
