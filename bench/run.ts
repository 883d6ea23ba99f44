/**
 * `npm run bench`: the throughput and latency figures of issues 10, 18 and 39, in one run on
 * this machine (see bench/README.md). Builds first (`npm run build` runs as prebench): the
 * consumer runs as production does, from dist/. Prints a table with each target checked and
 * writes bench/results/<timestamp>.json and bench/results/latest.json. Exits 1 when a scenario
 * did not start, threw, or did less work than asked (work-done.ts): a request failed, an
 * acknowledged event is missing from the inbox, an invoice, message or notice was not
 * delivered, a command exited non-zero. `--smoke` runs every scenario once at a tiny size,
 * for CI: a scenario that no longer runs is caught when it breaks.
 */
import { parseArgs } from 'node:util';
import { runDrain } from './drain.ts';
import { runHistory } from './history.ts';
import { runIngressScenarios } from './ingress.ts';
import { runMicroBenchmarks } from './micro.ts';
import { startBenchPostgres } from './postgres.ts';
import { runReconcile } from './reconcile.ts';
import { createReport, formatReport, writeReport } from './report.ts';
import { removeScratchFolders } from './scratch.ts';
import { startServerProcess } from './server-process.ts';
import type { TracingResult } from './tracing-cost.ts';

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
  --quick              a short run, to check the set-up
  --smoke              every scenario once at a tiny size (CI, about a minute): exits 1 when
                       one does not start, fails or does less than asked; checks no target`;

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
    smoke: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
  allowNegative: true,
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const { quick, smoke } = values;
const PARTS = ['ingress', 'drain', 'reconcile', 'history'];
const parts = new Set((values.only ?? PARTS.join(',')).split(','));
for (const part of parts) {
  if (!PARTS.includes(part)) usage(`--only: unknown part ${part}`);
}
if (quick && smoke) usage('--quick and --smoke: choose one');
/** The default, the --quick and the --smoke value of each size. */
const size = <T>(full: T, quickValue: T, smokeValue: T) =>
  smoke ? smokeValue : quick ? quickValue : full;
const parameters = {
  durationSeconds: positiveInteger('--duration', values.duration, size(10, 3, 1)),
  warmupSeconds: positiveInteger('--warmup', values.warmup, size(2, 1, 1)),
  connections: positiveInteger('--connections', values.connections, size(50, 50, 10)),
  invoices: positiveInteger('--invoices', values.invoices, size(5000, 500, 40)),
  reconcileMessages: positiveInteger('--reconcile', values.reconcile, size(10_000, 1000, 100)),
  historyEvents: positiveInteger('--history', values.history, size(1_000_000, 100_000, 2000)),
  historyRounds: positiveInteger('--rounds', values.rounds, size(3, 1, 1)),
  quick,
  smoke,
};

const startedAt = new Date();
/** Parts that threw: the report names them, and the run fails. */
const errors: { part: string; message: string }[] = [];
async function attempt<T>(part: string, run: () => Promise<T>): Promise<T | undefined> {
  const started = performance.now();
  try {
    const result = await run();
    console.error(`bench: ${part} ran for ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return result;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`${part}: ${error instanceof Error ? (error.stack ?? message) : message}`);
    errors.push({ part, message: message.trim() });
    return undefined;
  }
}

const micro = runMicroBenchmarks('micro-benchmark-secret', size(1, 0.3, 0.05));
// Reconciliation runs on SQLite alone: a run of it alone needs no cluster.
const wantsPostgres = values.postgres && ['ingress', 'drain', 'history'].some((p) => parts.has(p));
const postgres = wantsPostgres
  ? ((await attempt('postgres', () => startBenchPostgres())) ?? {
      missing: 'it did not start' as const,
    })
  : { missing: '--no-postgres' as const };
if ('missing' in postgres && wantsPostgres)
  console.error(`PostgreSQL scenarios skipped: ${postgres.missing}`);
const createDatabase = 'missing' in postgres ? undefined : () => postgres.createDatabase();
// The collector of the traced scenarios (tracing-cost.ts), for ingress and drain.
const receiver =
  parts.has('ingress') || parts.has('drain')
    ? await attempt('otlp receiver', () => startServerProcess('otlp-receiver-server.ts', {}))
    : undefined;
type Received = { requests: number; bytes: number };
const received = async (): Promise<Received> =>
  (await receiver?.command<Received>('received')) ?? { requests: 0, bytes: 0 };
const since = (before: Received, after: Received): Received => ({
  requests: after.requests - before.requests,
  bytes: after.bytes - before.bytes,
});
const tracing: TracingResult = { exported: {} };
const ingressRun = parts.has('ingress')
  ? await attempt('ingress', () =>
      runIngressScenarios({
        ...parameters,
        ...(createDatabase === undefined ? {} : { postgresDatabase: createDatabase }),
        ...(receiver === undefined ? {} : { otlpEndpoint: receiver.url }),
      }),
    )
  : undefined;
const ingress = ingressRun?.scenarios ?? [];
if (ingressRun?.traced !== undefined) {
  tracing.ingress = ingressRun.traced;
  tracing.exported.ingress = await received();
}
const drain = parts.has('drain')
  ? await attempt('drain (sqlite)', () =>
      runDrain({ invoices: parameters.invoices, profile: values.profile, importCost: true }),
    )
  : undefined;
if (drain !== undefined && receiver !== undefined) {
  const before = await received();
  const traced = await attempt('drain (sqlite, traced)', () =>
    runDrain({
      invoices: parameters.invoices,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    }),
  );
  if (traced !== undefined) {
    tracing.drain = traced;
    tracing.exported.drain = since(before, await received());
  }
}
await receiver?.stop();
const postgresDrain =
  parts.has('drain') && createDatabase !== undefined
    ? await attempt('drain (postgres)', async () =>
        runDrain({
          invoices: parameters.invoices,
          databaseUrl: await createDatabase(),
          consumers: 2,
        }),
      )
    : undefined;
const history = parts.has('history')
  ? await attempt('history', () =>
      runHistory({
        events: parameters.historyEvents,
        invoices: size(1000, 200, 20),
        durationSeconds: parameters.durationSeconds,
        rounds: parameters.historyRounds,
        retention: values.retention,
        insertSeconds: size(5, 5, 0.5),
        ...(createDatabase === undefined ? {} : { postgresDatabase: createDatabase }),
      }),
    )
  : undefined;
if (!('missing' in postgres)) postgres.stop();
const reconcile = parts.has('reconcile')
  ? await attempt('reconcile', () => runReconcile({ messages: parameters.reconcileMessages }))
  : undefined;
const report = createReport(startedAt, parameters, {
  ingress,
  micro,
  errors,
  ...(drain === undefined ? {} : { drain }),
  ...(postgresDrain === undefined ? {} : { postgresDrain }),
  ...(reconcile === undefined ? {} : { reconcile }),
  ...(history === undefined ? {} : { history }),
  ...(tracing.ingress === undefined && tracing.drain === undefined ? {} : { tracing }),
});
console.log(formatReport(report));
const results = new URL('results/', import.meta.url).pathname;
console.log(`\nWrote ${await writeReport(report, results)} and ${results}latest.json`);
// Every part's scratch folders at once, now that nothing is measured (scratch.ts says why).
await removeScratchFolders();
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
