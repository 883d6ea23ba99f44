/**
 * Vitest global setup: a real PostgreSQL for the tests that need one, once per run.
 *
 * - TEST_DATABASE_URL set: that server is used (tests create and drop databases of their own
 *   on it).
 * - Otherwise a private cluster in a temporary folder (postgres-cluster.ts), stopped at the end.
 * - Neither possible: the PostgreSQL tests are skipped with the reason, except in CI (CI=true),
 *   where a missing server is a failure.
 */
import type { TestProject } from 'vitest/node';
import { findPostgresBinaries, startPrivateCluster } from './postgres-cluster.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the test server (its `postgres` database), or '' when there is none. */
    postgresUrl: string;
    /** Why there is none. */
    postgresMissing: string;
  }
}

export default async function setup(project: TestProject) {
  const given = process.env.TEST_DATABASE_URL;
  if (given !== undefined && given !== '') {
    project.provide('postgresUrl', given);
    project.provide('postgresMissing', '');
    return;
  }
  const bin = findPostgresBinaries();
  if (bin === undefined) {
    const reason =
      'no PostgreSQL: install it (apt-get install postgresql) or set TEST_DATABASE_URL';
    if (process.env.CI === 'true') throw new Error(`CI: ${reason}`);
    project.provide('postgresUrl', '');
    project.provide('postgresMissing', reason);
    return;
  }
  const cluster = await startPrivateCluster(bin);
  project.provide('postgresUrl', cluster.url);
  project.provide('postgresMissing', '');
  return () => cluster.stop();
}
