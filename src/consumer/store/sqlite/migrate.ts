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
import type Database from 'better-sqlite3';
import { migrationFiles, migrationsToApply } from '../migration-files.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

/** How long a start waits for another process that is migrating the same file. */
const MIGRATION_BUSY_TIMEOUT_MS = 60_000;

export function migrate(db: Database.Database): number[] {
  const files = migrationFiles(MIGRATIONS_DIR);
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
        const newlyApplied: number[] = [];
        for (const file of migrationsToApply(files, applied)) {
          db.exec(file.read());
          db.prepare(
            'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
          ).run(file.version, file.name, Date.now());
          newlyApplied.push(file.version);
        }
        return newlyApplied;
      })
      .immediate();
  } finally {
    db.pragma(`busy_timeout = ${busyTimeout}`);
  }
}
