/**
 * A database of its own on a PostgreSQL server, for a test or a benchmark scenario: created
 * empty under a unique name, and dropped with whatever connections it still has. Free of
 * vitest: bench/ loads it under plain Node.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Runs one statement on the database at `url`, on a connection of its own. */
export async function runStatement(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates `<prefix>_<12 hex digits>` on the server; its name and URL. */
export async function createDatabase(
  serverUrl: string,
  prefix: string,
): Promise<{ name: string; url: string }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await runStatement(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

/** Drops `name`, closing its connections first (WITH FORCE); nothing when it is gone. */
export function dropDatabase(serverUrl: string, name: string): Promise<void> {
  return runStatement(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
