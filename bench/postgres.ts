/**
 * PostgreSQL for the benchmarks: BENCH_DATABASE_URL's server, or a private cluster started for
 * the run (test/support/postgres-cluster.ts). Each scenario gets a database of its own.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { findPostgresBinaries, startPrivateCluster } from '../test/support/postgres-cluster.ts';

export interface BenchPostgres {
  /** A new, empty database on the server; returns its URL. */
  createDatabase(): Promise<string>;
  stop(): void;
}

export async function startBenchPostgres(): Promise<BenchPostgres | { missing: string }> {
  const given = process.env.BENCH_DATABASE_URL;
  let base: string;
  let stop = () => {};
  if (given !== undefined && given !== '') {
    base = given;
  } else {
    const bin = findPostgresBinaries();
    if (bin === undefined) return { missing: 'no PostgreSQL binaries and no BENCH_DATABASE_URL' };
    const cluster = await startPrivateCluster(bin);
    base = cluster.url;
    stop = () => cluster.stop();
  }
  return {
    async createDatabase() {
      const name = `bench_${randomBytes(5).toString('hex')}`;
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      const url = new URL(base);
      url.pathname = `/${name}`;
      return url.toString();
    },
    stop,
  };
}
