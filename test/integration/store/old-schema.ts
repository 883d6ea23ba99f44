/**
 * A database as an older version of the program left it: the migration files up to a number
 * applied and recorded, as that version's start-up would have. For the upgrade tests, which
 * put old rows in it and then open the store of today on it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, it } from 'vitest';
import { migrationFiles } from '../../../src/consumer/store/migration-files.ts';
import {
  openPostgresStore,
  type PostgresStore,
} from '../../../src/consumer/store/postgres/pg-store.ts';
import {
  openSqliteStore,
  type SqliteStore,
} from '../../../src/consumer/store/sqlite/sqlite-store.ts';
import type { Store } from '../../../src/consumer/store/store.ts';
import { createTestDatabase, describeWithPostgres } from '../../support/postgres.ts';

/** The migration files numbered up to `last`, in order. */
export function migrationsThrough(store: 'sqlite' | 'postgres', last: number) {
  const dir = new URL(`../../../src/consumer/store/${store}/migrations/`, import.meta.url);
  return migrationFiles(dir).filter((file) => file.version <= last);
}

/** A new SQLite file at `path` migrated up to `last`; the caller closes it. */
function oldSqlite(path: string, last: number): Database.Database {
  const db = new Database(path);
  db.exec(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT',
  );
  for (const file of migrationsThrough('sqlite', last)) {
    db.exec(file.read());
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(file.version, file.name);
  }
  return db;
}

/** The empty PostgreSQL database at `url` migrated up to `last`; the caller ends the client. */
async function oldPostgres(url: string, last: number): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(
    'CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)',
  );
  for (const file of migrationsThrough('postgres', last)) {
    await client.query(file.read());
    await client.query('INSERT INTO schema_migrations VALUES ($1, $2, 0)', [
      file.version,
      file.name,
    ]);
  }
  return client;
}

/**
 * Upgrades a SQLite file: migrated up to `last` and given its old rows by `fill`, then opened
 * with today's store (which applies the newer migrations) for `check`. The file is removed after.
 */
export async function upgradeOldSqlite(
  last: number,
  fill: (db: Database.Database) => void,
  check: (store: SqliteStore) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'old-schema-'));
  try {
    const path = join(dir, 'consumer.db');
    const db = oldSqlite(path, last);
    try {
      fill(db);
    } finally {
      db.close();
    }
    const store = await openSqliteStore(path);
    try {
      await check(store);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The same for a new PostgreSQL database, dropped after. */
export async function upgradeOldPostgres(
  last: number,
  fill: (client: pg.Client) => Promise<void>,
  check: (store: PostgresStore) => Promise<void>,
): Promise<void> {
  const database = await createTestDatabase();
  try {
    const client = await oldPostgres(database.url, last);
    try {
      await fill(client);
    } finally {
      await client.end();
    }
    const store = await openPostgresStore(database.url);
    try {
      await check(store);
    } finally {
      await store.close();
    }
  } finally {
    await database.drop();
  }
}

/** Old rows as the upgrade tests write them: SQL with `?` placeholders, and its values. */
export type OldRows = ReadonlyArray<readonly [sql: string, values: readonly unknown[]]>;

/** A `fill` for upgradeOldSqlite: the rows inserted, booleans as SQLite's 0 and 1. */
export function insertIntoSqlite(rows: OldRows): (db: Database.Database) => void {
  return (db) => {
    for (const [sql, values] of rows) {
      db.prepare(sql).run(...values.map((v) => (typeof v === 'boolean' ? Number(v) : v)));
    }
  };
}

/** A `fill` for upgradeOldPostgres: the same rows, the `?` numbered as PostgreSQL's `$n`. */
export function insertIntoPostgres(rows: OldRows): (client: pg.Client) => Promise<void> {
  return async (client) => {
    for (const [sql, values] of rows) {
      let n = 0;
      await client.query(
        sql.replace(/\?/g, () => `$${++n}`),
        [...values],
      );
    }
  };
}

/**
 * The upgrade test of one migration on both stores, as a suite each: a database left by the
 * version before it (`before`: the last migration that version had, on each store, since their
 * numbers differ), given `rows`, then opened with today's store for `check`.
 */
export function describeUpgrade(
  migration: string,
  title: string,
  test: {
    before: { sqlite: number; postgres: number };
    rows: OldRows;
    check: (store: Store) => Promise<void>;
  },
): void {
  describe(`migration ${migration} on an existing SQLite file`, () => {
    it(title, async () => {
      await upgradeOldSqlite(test.before.sqlite, insertIntoSqlite(test.rows), test.check);
    });
  });
  describeWithPostgres(`migration ${migration} on an existing PostgreSQL database`, () => {
    it(title, async () => {
      await upgradeOldPostgres(test.before.postgres, insertIntoPostgres(test.rows), test.check);
    });
  });
}
