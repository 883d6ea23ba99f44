/**
 * The store's configuration section (docs/configuration.md): which database, and how many
 * connections to it. `npm run replay` reads it alone (loadStoreConfig).
 */
import { type Env, loadSection, type Reader } from '../settings/reader.ts';

export interface StoreConfig {
  /** `sqlite:<path>` or `postgres://...`. @default 'sqlite:./data/consumer.db' */
  databaseUrl: string;
  /** Connections of the PostgreSQL pool (ignored for SQLite). @default 10 */
  databasePoolSize: number;
}

export function readStoreSettings(read: Reader): StoreConfig {
  return {
    databaseUrl: read.string('DATABASE_URL', 'sqlite:./data/consumer.db', (v) =>
      /^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(v)
        ? undefined
        : 'must be sqlite:<path> or postgres://...',
    ),
    databasePoolSize: read.integer('DATABASE_POOL_SIZE', 10, { min: 1, max: 1000 }),
  };
}

/** DATABASE_URL and DATABASE_POOL_SIZE, read and checked exactly as `loadConfig` reads them. */
export function loadStoreConfig(env: Env): Readonly<StoreConfig> {
  return loadSection(env, readStoreSettings);
}
