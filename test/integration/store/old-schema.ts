/**
 * A database as an older version of the program left it: the migration files up to a number
 * applied and recorded, as that version's start-up would have. For the upgrade tests, which
 * put old rows in it and then open the store of today on it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';

/** The migration files numbered up to `last`, in order, as [version, name, sql]. */
export function migrationsThrough(store: 'sqlite' | 'postgres', last: number) {
  const dir = new URL(`../../../src/consumer/store/${store}/migrations/`, import.meta.url);
  return readdirSync(dir)
    .filter((file) => /^\d+_.+\.sql$/.test(file) && Number.parseInt(file, 10) <= last)
    .sort()
    .map(
      (file) =>
        [Number.parseInt(file, 10), file, readFileSync(new URL(file, dir), 'utf8')] as const,
    );
}

/** A new SQLite file at `path` migrated up to `last`; the caller closes it. */
export function oldSqlite(path: string, last: number): Database.Database {
  const db = new Database(path);
  db.exec(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT',
  );
  for (const [version, name, sql] of migrationsThrough('sqlite', last)) {
    db.exec(sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(version, name);
  }
  return db;
}

/** The empty PostgreSQL database at `url` migrated up to `last`; the caller ends the client. */
export async function oldPostgres(url: string, last: number): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(
    'CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)',
  );
  for (const [version, name, sql] of migrationsThrough('postgres', last)) {
    await client.query(sql);
    await client.query('INSERT INTO schema_migrations VALUES ($1, $2, 0)', [version, name]);
  }
  return client;
}
