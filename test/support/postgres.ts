/**
 * A fresh PostgreSQL database per test, on the server the global setup provides
 * (postgres-global.ts). `describeWithPostgres` skips a suite, with the reason, when there is no
 * server (never in CI: the setup fails there instead).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
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
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
