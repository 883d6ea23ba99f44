/**
 * Applies the numbered SQL files of ./migrations in order and records them in
 * schema_migrations. Files are never edited once released: a change is a new file.
 *
 * Several processes may start on one file at once (the consumer and a cron reconciliation,
 * replicas of a deployment): the check of what is applied and the applying happen in one
 * IMMEDIATE transaction, so the second process waits for the first and then finds nothing left
 * to do. A database that holds a migration newer than this code (a deployment rolled back after
 * a newer version ran) is refused with a clear error rather than used half-understood.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { MigrationError } from '../store.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

/** How long a start waits for another process that is migrating the same file. */
const MIGRATION_BUSY_TIMEOUT_MS = 60_000;

export function migrate(db: Database.Database): number[] {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .sort();
  const known = Math.max(0, ...files.map((file) => Number.parseInt(file, 10)));
  const busyTimeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma(`busy_timeout = ${MIGRATION_BUSY_TIMEOUT_MS}`);
  try {
    return db
      .transaction(() => {
        db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
          version    INTEGER PRIMARY KEY,
          name       TEXT    NOT NULL,
          applied_at INTEGER NOT NULL
        ) STRICT`);
        const applied = db
          .prepare<[], { version: number; name: string }>(
            'SELECT version, name FROM schema_migrations ORDER BY version',
          )
          .all();
        const newest = applied.at(-1);
        if (newest !== undefined && newest.version > known) {
          throw new MigrationError(
            `the database was migrated by a newer version of this program (migration ` +
              `${newest.name}; this one knows up to ${known}): run that version, or restore a ` +
              'backup taken before it',
          );
        }
        const done = new Set(applied.map((row) => row.version));
        const newlyApplied: number[] = [];
        for (const file of files) {
          const version = Number.parseInt(file, 10);
          if (done.has(version)) continue;
          db.exec(readFileSync(new URL(file, MIGRATIONS_DIR), 'utf8'));
          db.prepare(
            'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
          ).run(version, file, Date.now());
          newlyApplied.push(version);
        }
        return newlyApplied;
      })
      .immediate();
  } finally {
    db.pragma(`busy_timeout = ${busyTimeout}`);
  }
}
