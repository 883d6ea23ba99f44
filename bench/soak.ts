/**
 * `npm run soak`: ten minutes (by default) of steady mixed traffic through the consumer and its
 * worker against the embedded provider, with faults now and then; prints the consumer's
 * memory and handles over time and exits 1, saying why, if memory or handles grew after the
 * warm-up, or an event was lost, or an invoice imported twice (see bench/README.md).
 */
import { parseArgs } from 'node:util';
import { FAULT_KINDS, type FaultKind } from './soak-faults.ts';
import { runSoak } from './soak-run.ts';

const USAGE = `Usage: npm run soak -- [options]
  --minutes <m>        length of the run, warm-up included (default 10, or SOAK_MINUTES)
  --warmup <s>         seconds of warm-up before the baseline (default 60, or half a shorter run)
  --sample <s>         seconds between samples (default: the run in about 60 rows, 2 to 60)
  --rate <n>           inbound invoices per second (default 2)
  --faults <list>      comma-separated, of ${FAULT_KINDS.join(', ')}; or none (default all)
  --fault-every <s>    seconds between two faults (default 30)
  --seed <n>           seed of the traffic's choices (default random, printed)
  --drain-timeout <s>  how long the end may wait for pending deliveries and events (default 180)
  --keep               keep the work folder (database, documents, logs) after a passing run`;

const { values } = parseArgs({
  options: {
    minutes: { type: 'string' },
    warmup: { type: 'string' },
    sample: { type: 'string' },
    rate: { type: 'string' },
    faults: { type: 'string' },
    'fault-every': { type: 'string' },
    seed: { type: 'string' },
    'drain-timeout': { type: 'string' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const minutes = positive(
  values.minutes === undefined ? 'SOAK_MINUTES' : '--minutes',
  values.minutes ?? process.env.SOAK_MINUTES,
  10,
);
const runSeconds = minutes * 60;
const warmupSeconds = positive('--warmup', values.warmup, Math.min(60, runSeconds / 2));
if (warmupSeconds >= runSeconds) {
  usage(`--warmup must be shorter than the run (${runSeconds} s)`);
}
const faults = faultKinds(values.faults ?? FAULT_KINDS.join(','));
const verdict = await runSoak({
  minutes,
  warmupSeconds,
  sampleSeconds: positive(
    '--sample',
    values.sample,
    Math.min(60, Math.max(2, Math.round(runSeconds / 60))),
  ),
  rate: positiveInteger('--rate', values.rate, 2),
  faults,
  faultEverySeconds: positive('--fault-every', values['fault-every'], 30),
  seed: positiveInteger('--seed', values.seed, Math.floor(Math.random() * 2 ** 31) + 1),
  drainTimeoutSeconds: positive('--drain-timeout', values['drain-timeout'], 180),
  keep: values.keep,
  print: (line) => console.log(line),
});
if (verdict.passed) {
  console.log('\nsoak: passed');
} else {
  console.log(`\nsoak: FAILED\n${verdict.failures.map((f) => `  - ${f}`).join('\n')}`);
}
if (verdict.dir !== undefined) console.log(`work folder kept: ${verdict.dir}`);
process.exit(verdict.passed ? 0 : 1);

function positive(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+(\.\d+)?$/.test(raw) || Number(raw) <= 0) {
    usage(`${flag} must be a positive number (got ${JSON.stringify(raw)})`);
  }
  return Number(raw);
}

function positiveInteger(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^[1-9]\d*$/.test(raw)) {
    usage(`${flag} must be a positive integer (got ${JSON.stringify(raw)})`);
  }
  return Number(raw);
}

function faultKinds(raw: string): FaultKind[] {
  if (raw === 'none') return [];
  const kinds = raw.split(',').map((k) => k.trim());
  for (const kind of kinds) {
    if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
      usage(`--faults: unknown fault ${JSON.stringify(kind)}`);
    }
  }
  return kinds as FaultKind[];
}

function usage(problem: string): never {
  console.error(`${problem}\n\n${USAGE}`);
  process.exit(2);
}
