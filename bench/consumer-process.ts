/**
 * The consumer under test as production runs it: `node dist/src/main.js` (the runner builds
 * first), configured by its environment, stopped with SIGTERM (its graceful shutdown). CPU time
 * and peak memory come from /proc, which count every thread of the process: the event loop and
 * the SQLite writer.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawnWithOutput } from '../test/support/child-output.ts';
import { freePort } from '../test/support/free-port.ts';
import { statCpuMicros } from './thread-cpu.ts';

export const MAIN = fileURLToPath(new URL('../dist/src/main.js', import.meta.url));

/**
 * The environment and Node options `npm start` runs the consumer with (package.json), so the
 * benchmark measures production's memory settings and its tracing start-up (off unless a
 * scenario sets OTEL_*), from one source. The options are the words between `node` and the
 * script; a relative path among them (`--import ./dist/...`) is the repository's.
 */
export const PRODUCTION_START = (() => {
  const packageJson = JSON.parse(
    readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
  ) as { scripts: { start: string } };
  const words = packageJson.scripts.start.split(/\s+/);
  const env = Object.fromEntries(
    words.filter((w) => /^[A-Z_]+=/.test(w)).map((w) => w.split('=') as [string, string]),
  );
  const nodeArgs = words
    .slice(words.indexOf('node') + 1, -1)
    .map((w) =>
      w.startsWith('./') ? fileURLToPath(new URL(`../${w.slice(2)}`, import.meta.url)) : w,
    );
  return { env, nodeArgs };
})();
export const RECONCILE = fileURLToPath(new URL('../dist/scripts/reconcile.js', import.meta.url));

/**
 * The importer every bench process runs unless a scenario names one: production refuses to
 * start without IMPORTER_MODULE (src/consumer/importer/settings.ts), and the figures so far
 * were measured with the default file importer.
 */
export const BENCH_IMPORTER_ENV = { IMPORTER_MODULE: 'file' } as const;

/** How long a consumer may take to answer /healthz before the scenario fails. */
const START_TIMEOUT_MS = 30_000;

export interface MeasuredProcess {
  child: ChildProcess;
  pid: number;
  /** user + system CPU time so far, all threads, in microseconds. */
  cpuMicros(): number;
  /** Peak resident memory so far (VmHWM), in bytes. */
  peakRssBytes(): number;
}

export interface ConsumerProcess extends MeasuredProcess {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Its stdout and stderr so far (its log lines). */
  output(): string;
  /** SIGTERM, then waits for the exit; throws unless it exits 0. */
  stop(): Promise<void>;
}

/** Spawns `node [nodeArgs] script` with exactly `env` (plus PATH), measured through /proc. */
export function spawnMeasured(
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): MeasuredProcess & { output(): string } {
  const { child, output } = spawnWithOutput(process.execPath, [...nodeArgs, script], {
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env },
  });
  const pid = child.pid as number;
  return {
    child,
    pid,
    output,
    cpuMicros: () => statCpuMicros(`/proc/${pid}/stat`),
    peakRssBytes() {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    },
  };
}

export async function startConsumerProcess(
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<ConsumerProcess> {
  const port = await freePort();
  const measured = spawnMeasured(
    MAIN,
    { ...PRODUCTION_START.env, ...BENCH_IMPORTER_ENV, ...env, PORT: String(port) },
    [...PRODUCTION_START.nodeArgs, ...nodeArgs],
  );
  const url = `http://127.0.0.1:${port}`;
  const exited = once(measured.child, 'exit');
  const deadline = performance.now() + START_TIMEOUT_MS;
  for (let ready = false; !ready; ) {
    if (measured.child.exitCode !== null) {
      throw new Error(`the consumer exited before listening:\n${measured.output()}`);
    }
    if (performance.now() > deadline) {
      measured.child.kill('SIGKILL');
      throw new Error(
        `the consumer did not answer /healthz within ${START_TIMEOUT_MS / 1000} s:\n${measured.output()}`,
      );
    }
    ready = await fetch(`${url}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (!ready) await new Promise((r) => setTimeout(r, 25));
  }
  return {
    ...measured,
    url,
    async stop() {
      measured.child.kill('SIGTERM');
      const [code] = await exited;
      if (code !== 0) throw new Error(`the consumer exited with ${code}:\n${measured.output()}`);
    },
  };
}
