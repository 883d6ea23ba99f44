/**
 * The inbox file's write connection as the writer thread opens it (writer-thread.ts): its
 * pragmas, then its migrations. bench/floor-writer.ts opens the benchmark's floor this way too,
 * so the floor commits as the consumer does.
 */
import Database from 'better-sqlite3';
import { migrate } from './migrate.ts';
import { PAGE_CACHE_PRAGMA } from './page-cache.ts';

export function openWriterDatabase(path: string): Database.Database {
  const db = new Database(path);
  // Set before anything that can wait for another process's lock.
  db.pragma('busy_timeout = 5000');
  // A new file gives freed pages back to the file system on request (retention's reclaim
  // step); this must be set before the first table and before WAL mode.
  const empty = db.prepare('SELECT 1 FROM sqlite_schema LIMIT 1').get() === undefined;
  if (empty) db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma(PAGE_CACHE_PRAGMA);
  migrate(db);
  return db;
}
