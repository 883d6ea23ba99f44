import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { openPostgresStore } from './postgres/pg-store.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';

export interface OpenStoreOptions {
  /** PostgreSQL only: connections of the pool (DATABASE_POOL_SIZE). @default 10 */
  poolSize?: number;
  /**
   * Whether a SQLite file that does not exist yet may be created. The consumer creates its
   * database; the operational commands (reconcile, replay) refuse, so that one pointed at the
   * wrong file says so instead of working on an empty database. @default true
   */
  create?: boolean;
}

/** DATABASE_URL names a SQLite file that does not exist, and the command may not create it. */
export class MissingDatabaseError extends Error {
  override readonly name = 'MissingDatabaseError';
}

/**
 * Opens the store DATABASE_URL names: `sqlite:<path>` (`sqlite::memory:` for a throw-away
 * database) or `postgres://` / `postgresql://`.
 */
export async function openStore(
  databaseUrl: string,
  options: OpenStoreOptions = {},
): Promise<Store> {
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length);
    if (options.create === false && path !== ':memory:' && !existsSync(path)) {
      throw new MissingDatabaseError(
        `DATABASE_URL ${databaseUrl}: there is no database at ${resolve(path)}; set DATABASE_URL to the consumer's (npm run dev keeps its own at sqlite:./data/dev.db, the image at sqlite:/data/consumer.db)`,
      );
    }
    return openSqliteStore(path);
  }
  return openPostgresStore(
    databaseUrl,
    options.poolSize === undefined ? {} : { poolSize: options.poolSize },
  );
}
