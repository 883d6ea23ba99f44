/**
 * Applies the numbered SQL files of ./migrations in order and records them in
 * schema_migrations, like the SQLite store's migrator. Replicas starting at once take turns
 * on a PostgreSQL advisory lock held for the whole check-and-apply, so the second finds the
 * work done; each file runs in a transaction of its own. A database holding a migration newer
 * than this code is refused with a clear error.
 *
 * It runs on a connection of its own, opened for it and closed after: its statements may take
 * long (an index built on a large table), longer than the pool lets a query run (pool.ts).
 */
import pg from 'pg';
import { migrationFiles, migrationsToApply } from '../migration-files.ts';
import { clientConfig } from './pool.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
/** Any fixed number: the lock all processes of this program agree on. */
const MIGRATION_LOCK = 4_242_001;

export async function migrate(connectionString: string): Promise<number[]> {
  const files = migrationFiles(MIGRATIONS_DIR);
  const client = new pg.Client(clientConfig(connectionString));
  // A connection the server drops between two statements emits 'error', which would end the
  // process unheard; the failure reaches this code as the next query's rejection instead.
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version    integer PRIMARY KEY,
        name       text    NOT NULL,
        applied_at bigint  NOT NULL
      )`);
      const { rows } = await client.query<{ version: number; name: string }>(
        'SELECT version, name FROM schema_migrations ORDER BY version',
      );
      const applied: number[] = [];
      for (const file of migrationsToApply(files, rows)) {
        await client.query('BEGIN');
        try {
          await client.query(file.read());
          await client.query(
            'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)',
            [file.version, file.name, Date.now()],
          );
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw error;
        }
        applied.push(file.version);
      }
      return applied;
    } finally {
      // Ending the session below releases the lock too; this only frees it sooner, and must
      // not hide the error that brought us here (the connection may be the one that failed).
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    }
  } finally {
    await client.end().catch(() => {});
  }
}
