/**
 * A fresh PostgreSQL database per test, on the server the global setup provides
 * (postgres-global.ts). `describeWithPostgres` skips a suite, with the reason, when there is no
 * server (never in CI: the setup fails there instead).
 */
import { inject } from 'vitest';
import { createDatabase, dropDatabase } from './postgres-database.ts';
import { describeIfAvailable } from './requirement.ts';

export const POSTGRES_URL = inject('postgresUrl');
export const POSTGRES_MISSING = inject('postgresMissing');

/** `describe` where a PostgreSQL server is; see describeIfAvailable otherwise. */
export function describeWithPostgres(name: string, body: () => void) {
  describeIfAvailable(name, POSTGRES_URL === '' ? POSTGRES_MISSING : undefined, body);
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates an empty database with a unique name; `drop()` removes it (and its connections). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const { name, url } = await createDatabase(POSTGRES_URL, 'test');
  return { url, drop: () => dropDatabase(POSTGRES_URL, name) };
}
