import { openPostgresStore } from './postgres/pg-store.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';

export interface OpenStoreOptions {
  /** PostgreSQL only: connections of the pool (DATABASE_POOL_SIZE). @default 10 */
  poolSize?: number;
}

/**
 * Opens the store DATABASE_URL names: `sqlite:<path>` (`sqlite::memory:` for a throw-away
 * database) or `postgres://` / `postgresql://`.
 */
export async function openStore(
  databaseUrl: string,
  options: OpenStoreOptions = {},
): Promise<Store> {
  if (databaseUrl.startsWith('sqlite:'))
    return openSqliteStore(databaseUrl.slice('sqlite:'.length));
  return openPostgresStore(
    databaseUrl,
    options.poolSize === undefined ? {} : { poolSize: options.poolSize },
  );
}
