/**
 * Reconciliation of a large backlog: N inbound messages pending at the embedded provider (in a
 * process of its own) that the consumer never heard of, and `dist/scripts/reconcile.js` run
 * once against a fresh database, as cron runs it. Measured: seconds until it exits, which must
 * be 0 with every message imported and acknowledged.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consumerFilesEnv } from '../test/support/consumer-env.ts';
import { PRODUCTION_START, RECONCILE, spawnMeasured } from './consumer-process.ts';
import { startServerProcess } from './server-process.ts';

export interface ReconcileResult {
  messages: number;
  seconds: number;
  messagesPerSecond: number;
  exitCode: number | null;
  /** The summary line the command printed. */
  summary: string;
  /** Share of one core, over the run. */
  reconcileCpu: number;
  providerCpu: number;
  peakRssBytes: number;
  /** Messages the provider shows delivered afterwards. */
  delivered: number;
}

export async function runReconcile(options: { messages: number }): Promise<ReconcileResult> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-reconcile-'));
  const provider = await startServerProcess('provider-server.ts', {});
  try {
    await provider.command('seed', { count: options.messages, file: join(dir, 'events.jsonl') });
    const providerCpuBefore = await provider.cpuMicros();
    const started = performance.now();
    const run = spawnMeasured(
      RECONCILE,
      {
        ...PRODUCTION_START.env,
        WEBHOOK_SECRETS: 'bench-reconcile-secret-0123456789',
        API_BASE_URL: provider.url,
        API_TOKEN: 'sandbox-token',
        ...consumerFilesEnv(dir),
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
    }, 100);
    const [exitCode] = (await once(run.child, 'exit')) as [number | null];
    clearInterval(sample);
    const seconds = (performance.now() - started) / 1000;
    return {
      messages: options.messages,
      seconds,
      messagesPerSecond: options.messages / seconds,
      exitCode,
      summary:
        run
          .output()
          .split('\n')
          .find((line) => line.startsWith('reconcile:')) ?? run.output(),
      reconcileCpu: cpuMicros / (seconds * 1e6),
      providerCpu: ((await provider.cpuMicros()) - providerCpuBefore) / (seconds * 1e6),
      peakRssBytes,
      delivered: await provider.command<number>('delivered'),
    };
  } finally {
    await provider.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
