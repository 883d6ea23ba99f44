import { openSqliteStore } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';

/**
 * Opens the store DATABASE_URL names: `sqlite:<path>` (`sqlite::memory:` for a throw-away
 * database) or `postgres://`.
 */
export async function openStore(databaseUrl: string): Promise<Store> {
  if (databaseUrl.startsWith('sqlite:'))
    return openSqliteStore(databaseUrl.slice('sqlite:'.length));
  throw new Error(
    `DATABASE_URL: the PostgreSQL store is not available yet (${databaseUrl.split(':')[0]})`,
  );
}
