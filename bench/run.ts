/**
 * `npm run bench`: ingress throughput of the consumer against a bare node:http server, in one
 * run on this machine, plus tight-loop timings of the per-request steps. Prints a table and
 * writes bench-results/<timestamp>.json and bench-results/latest.json. Exits 1 when a request
 * failed or an acknowledged event is missing from the inbox. See bench/README.md.
 */
import { parseArgs } from 'node:util';
import { runMicroBenchmarks } from './micro.ts';
import { createReport, formatReport, writeReport } from './report.ts';
import { runScenarios } from './scenarios.ts';

const USAGE = `Usage: npm run bench -- [--duration <s>] [--warmup <s>] [--connections <n>] [--quick]
  --duration      seconds measured per scenario (default 10; 3 with --quick)
  --warmup        seconds of unmeasured load first (default 2; 1 with --quick)
  --connections   concurrent keep-alive connections (default 50)
  --quick         a short run, to check the set-up`;

const { values } = parseArgs({
  options: {
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    quick: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const quick = values.quick;
const parameters = {
  durationSeconds: positiveInteger('--duration', values.duration, quick ? 3 : 10),
  warmupSeconds: positiveInteger('--warmup', values.warmup, quick ? 1 : 2),
  connections: positiveInteger('--connections', values.connections, 50),
  microSeconds: quick ? 0.3 : 1,
  quick,
};

const startedAt = new Date();
const micro = runMicroBenchmarks('micro-benchmark-secret', parameters.microSeconds);
const scenarios = await runScenarios(parameters);
const report = createReport(startedAt, parameters, scenarios, micro);
console.log(formatReport(report));
console.log(`\nWrote ${await writeReport(report, 'bench-results')} and bench-results/latest.json`);
process.exit(report.passed ? 0 : 1);

function positiveInteger(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^[1-9]\d*$/.test(raw)) {
    console.error(`${flag} must be a positive integer (got ${JSON.stringify(raw)})\n\n${USAGE}`);
    process.exit(2);
  }
  return Number(raw);
}
