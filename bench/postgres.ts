/**
 * PostgreSQL for the benchmarks: BENCH_DATABASE_URL's server, or a private cluster started for
 * the run (test/support/postgres-cluster.ts). Each scenario gets a database of its own.
 */
import { findPostgresBinaries, startPrivateCluster } from '../test/support/postgres-cluster.ts';
import { createDatabase } from '../test/support/postgres-database.ts';

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
    createDatabase: async () => (await createDatabase(base, 'bench')).url,
    stop,
  };
}
