/**
 * Reconciliation of a large backlog: N inbound messages pending at the embedded provider (in a
 * process of its own) that the consumer never heard of, and `dist/scripts/reconcile.js` run
 * once, as cron runs it, against a consumer's database that holds nothing yet. Measured:
 * seconds until it exits, which must be 0 with every message imported and acknowledged.
 *
 * The database is made first, as the consumer makes it at its first start (openStore applies
 * the migrations): `reconcile` refuses a SQLite file that does not exist
 * (docs/configuration.md, DATABASE_URL), so that one pointed at the wrong file says so.
 */
import { once } from 'node:events';
import { join } from 'node:path';
import { openStore } from '../src/consumer/store/open-store.ts';
import { consumerFilesEnv } from '../test/support/consumer-env.ts';
import {
  BENCH_IMPORTER_ENV,
  PRODUCTION_START,
  RECONCILE,
  spawnMeasured,
} from './consumer-process.ts';
import { scratchFolder } from './scratch.ts';
import { startServerProcess } from './server-process.ts';

export interface ReconcileResult {
  messages: number;
  seconds: number;
  messagesPerSecond: number;
  exitCode: number | null;
  /** The summary line the command printed (or its whole output when there is none). */
  summary: string;
  /** Share of one core, over the run. */
  reconcileCpu: number;
  providerCpu: number;
  /** CPU time per message, all threads, in milliseconds. */
  reconcileCpuMsPerMessage: number;
  providerCpuMsPerMessage: number;
  peakRssBytes: number;
  /** Messages the provider shows delivered afterwards. */
  delivered: number;
}

/** How long one run may take before it is stopped and counted as failed. */
const RUN_TIMEOUT_MS = 10 * 60_000;

export async function runReconcile(options: { messages: number }): Promise<ReconcileResult> {
  const dir = await scratchFolder('bench-reconcile-');
  const provider = await startServerProcess('provider-server.ts', {});
  try {
    await provider.command('seed', { count: options.messages, file: join(dir, 'events.jsonl') });
    const files = consumerFilesEnv(dir);
    await (await openStore(files.DATABASE_URL)).close();
    const providerCpuBefore = await provider.cpuMicros();
    const started = performance.now();
    const run = spawnMeasured(
      RECONCILE,
      {
        ...PRODUCTION_START.env,
        ...BENCH_IMPORTER_ENV,
        API_BASE_URL: provider.url,
        API_TOKEN: 'sandbox-token',
        ...files,
        LOG_LEVEL: 'warn',
      },
      PRODUCTION_START.nodeArgs,
    );
    let peakRssBytes = 0;
    let cpuMicros = 0;
    const sample = setInterval(() => {
      try {
        // The maximum: an exited process not yet reaped reads as 0 (a zombie has no VmHWM).
        peakRssBytes = Math.max(peakRssBytes, run.peakRssBytes());
        cpuMicros = Math.max(cpuMicros, run.cpuMicros());
      } catch {
        // It has exited between two samples.
      }
    }, 50);
    const timeout = setTimeout(() => run.child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    const [exitCode] = (await once(run.child, 'exit')) as [number | null];
    clearTimeout(timeout);
    clearInterval(sample);
    const seconds = (performance.now() - started) / 1000;
    const providerCpuMicros = (await provider.cpuMicros()) - providerCpuBefore;
    const output = run.output();
    return {
      messages: options.messages,
      seconds,
      messagesPerSecond: options.messages / seconds,
      exitCode,
      summary: output.split('\n').find((line) => line.startsWith('reconcile:')) ?? output.trim(),
      reconcileCpu: cpuMicros / (seconds * 1e6),
      providerCpu: providerCpuMicros / (seconds * 1e6),
      reconcileCpuMsPerMessage: cpuMicros / 1000 / options.messages,
      providerCpuMsPerMessage: providerCpuMicros / 1000 / options.messages,
      peakRssBytes,
      delivered: await provider.command<number>('delivered'),
    };
  } finally {
    await provider.stop();
  }
}
