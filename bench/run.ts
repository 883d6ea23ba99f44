/**
 * `npm run bench`: the throughput and latency figures of issue 10, in one run on this machine
 * (see bench/README.md). Builds first (`npm run build` runs as prebench): the consumer runs as
 * production does, from dist/. Prints a table with each target checked and writes
 * bench/results/<timestamp>.json and bench/results/latest.json. Exits 1 when a request failed,
 * an acknowledged event is missing from the inbox, or a backlog run did not complete.
 */
import { parseArgs } from 'node:util';
import { runDrain } from './drain.ts';
import { runHistory } from './history.ts';
import { runIngressScenarios } from './ingress.ts';
import { runMicroBenchmarks } from './micro.ts';
import { startBenchPostgres } from './postgres.ts';
import { runReconcile } from './reconcile.ts';
import { createReport, formatReport, writeReport } from './report.ts';

const USAGE = `Usage: npm run bench -- [options]
  --duration <s>       seconds measured per load scenario (default 10; 3 with --quick)
  --warmup <s>         seconds of unmeasured load first (default 2; 1 with --quick)
  --connections <n>    concurrent keep-alive connections (default 50)
  --invoices <n>       invoices in the backlog drain (default 5000; 500 with --quick)
  --reconcile <n>      pending messages for the reconciliation run (default 10000; 1000 with --quick)
  --only <list>        comma-separated parts to run: ingress, drain, reconcile, history
                       (default all)
  --history <n>        events of history for the history part (default 1000000; 100000
                       with --quick); issue 18 measured at 5000000
  --rounds <n>         rounds of the history part's probes, each on the empty store and the
                       history back to back (default 3; 1 with --quick)
  --no-retention       skip the history part's retention pass (about 8 minutes a million
                       events; its bound scales, so a smaller run gives it)
  --no-postgres        leave PostgreSQL out of every part (SQLite's half alone)
  --profile            run the drain under --cpu-prof and show where the consumer's time goes
  --quick              a short run, to check the set-up`;

const { values } = parseArgs({
  options: {
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    invoices: { type: 'string' },
    reconcile: { type: 'string' },
    only: { type: 'string' },
    history: { type: 'string' },
    rounds: { type: 'string' },
    profile: { type: 'boolean', default: false },
    postgres: { type: 'boolean', default: true },
    retention: { type: 'boolean', default: true },
    quick: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
  allowNegative: true,
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const quick = values.quick;
const PARTS = ['ingress', 'drain', 'reconcile', 'history'];
const parts = new Set((values.only ?? PARTS.join(',')).split(','));
for (const part of parts) {
  if (!PARTS.includes(part)) usage(`--only: unknown part ${part}`);
}
const parameters = {
  durationSeconds: positiveInteger('--duration', values.duration, quick ? 3 : 10),
  warmupSeconds: positiveInteger('--warmup', values.warmup, quick ? 1 : 2),
  connections: positiveInteger('--connections', values.connections, 50),
  invoices: positiveInteger('--invoices', values.invoices, quick ? 500 : 5000),
  reconcileMessages: positiveInteger('--reconcile', values.reconcile, quick ? 1000 : 10_000),
  historyEvents: positiveInteger('--history', values.history, quick ? 100_000 : 1_000_000),
  historyRounds: positiveInteger('--rounds', values.rounds, quick ? 1 : 3),
  quick,
};

const startedAt = new Date();
const micro = runMicroBenchmarks('micro-benchmark-secret', quick ? 0.3 : 1);
const postgres = values.postgres
  ? await startBenchPostgres()
  : { missing: '--no-postgres' as const };
if ('missing' in postgres) console.error(`PostgreSQL scenarios skipped: ${postgres.missing}`);
const createDatabase = 'missing' in postgres ? undefined : () => postgres.createDatabase();
const ingress = parts.has('ingress')
  ? await runIngressScenarios({
      ...parameters,
      ...(createDatabase === undefined ? {} : { postgresDatabase: createDatabase }),
    })
  : [];
const drain = parts.has('drain')
  ? await runDrain({ invoices: parameters.invoices, profile: values.profile })
  : undefined;
const postgresDrain =
  parts.has('drain') && createDatabase !== undefined
    ? await runDrain({
        invoices: parameters.invoices,
        databaseUrl: await createDatabase(),
        consumers: 2,
      })
    : undefined;
const history = parts.has('history')
  ? await runHistory({
      events: parameters.historyEvents,
      invoices: quick ? 200 : 1000,
      durationSeconds: parameters.durationSeconds,
      rounds: parameters.historyRounds,
      retention: values.retention,
      ...(createDatabase === undefined ? {} : { postgresDatabase: createDatabase }),
    })
  : undefined;
if (!('missing' in postgres)) postgres.stop();
const reconcile = parts.has('reconcile')
  ? await runReconcile({ messages: parameters.reconcileMessages })
  : undefined;
const report = createReport(startedAt, parameters, {
  ingress,
  micro,
  ...(drain === undefined ? {} : { drain }),
  ...(postgresDrain === undefined ? {} : { postgresDrain }),
  ...(reconcile === undefined ? {} : { reconcile }),
  ...(history === undefined ? {} : { history }),
});
console.log(formatReport(report));
const results = new URL('results/', import.meta.url).pathname;
console.log(`\nWrote ${await writeReport(report, results)} and ${results}latest.json`);
process.exit(report.passed ? 0 : 1);

function positiveInteger(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^[1-9]\d*$/.test(raw))
    usage(`${flag} must be a positive integer (got ${JSON.stringify(raw)})`);
  return Number(raw);
}

function usage(problem: string): never {
  console.error(`${problem}\n\n${USAGE}`);
  process.exit(2);
}
