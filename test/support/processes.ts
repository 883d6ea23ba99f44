/**
 * Runs a TypeScript entry point as its own Node process, as a user or cron would: `node
 * <script>`, with Node 24's own type stripping, as the npm scripts run them (`npm run
 * reconcile` is `node scripts/reconcile.ts`). No loader in between: tsx cost each start about
 * 0.3 s more, and the tests start many processes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { childEnv } from './child-env.ts';
import { CONSUMER_MAIN } from './entry-points.ts';

export interface RunningScript {
  child: ChildProcess;
  /** stdout and stderr so far, interleaved. */
  output(): string;
  /** Resolves with the exit code. */
  exited(): Promise<number>;
}

/**
 * Starts `script` with exactly `env` (plus childEnv()): no .env, nothing inherited by accident.
 * `nodeArgs` go before the script, as an npm script's flags do (npmScriptNodeFlags() in entry-points.ts has `npm start`'s).
 */
export function startScript(
  script: string,
  options: { args?: string[]; nodeArgs?: string[]; env?: Record<string, string>; cwd: string },
): RunningScript {
  const args = [...(options.nodeArgs ?? []), script, ...(options.args ?? [])];
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: { ...childEnv(), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exit = once(child, 'exit').then(([code]) => code as number);
  return { child, output: () => output, exited: () => exit };
}

/** Runs `script` to its end. */
export async function runScript(
  script: string,
  options: Parameters<typeof startScript>[1],
): Promise<{ code: number; output: string }> {
  const running = startScript(script, options);
  const code = await running.exited();
  return { code, output: running.output() };
}

export { freePort } from './free-port.ts';

/** Resolves once `text` appears in the process's output; fails if it exits or `ms` pass. */
export async function waitForOutput(script: RunningScript, text: string, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!script.output().includes(text)) {
    if (script.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`never printed ${JSON.stringify(text)}:\n${script.output()}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Resolves once `url` answers 200; fails if the process exits or `ms` pass. */
export async function waitForHttp(script: RunningScript, url: string, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const ok = await fetch(url).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ok) return;
    if (script.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`${url} never answered 200:\n${script.output()}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * The processes one test starts (consumers, reconciliations, replays), kept so that its end can
 * kill them all: a failed test leaves none behind holding a port, or writing into a folder the
 * test is about to remove.
 */
export interface TestProcesses {
  /** startScript(), kept in the list. */
  start(script: string, options: Parameters<typeof startScript>[1]): RunningScript;
  /**
   * The consumer (`node src/main.ts`) on `port` with `env`; resolves once `ready` (a path of
   * its operations routes) answers 200 within `ms`.
   */
  startConsumer(options: {
    cwd: string;
    port: number;
    env: Record<string, string>;
    /** @default '/readyz' */
    ready?: string;
    /** @default 15_000 */
    ms?: number;
  }): Promise<RunningScript>;
  /** Every process started since the last killAll(), in order, exited or not. */
  started(): readonly RunningScript[];
  /** SIGKILLs each one still running and waits for it to exit; the list is empty after. */
  killAll(): Promise<void>;
}

export function createTestProcesses(): TestProcesses {
  const started: RunningScript[] = [];
  const start: TestProcesses['start'] = (script, options) => {
    const running = startScript(script, options);
    started.push(running);
    return running;
  };
  return {
    start,
    async startConsumer({ cwd, port, env, ready = '/readyz', ms }) {
      const consumer = start(CONSUMER_MAIN, { cwd, env: { ...env, PORT: String(port) } });
      await waitForHttp(consumer, `http://127.0.0.1:${port}${ready}`, ms);
      return consumer;
    },
    started: () => started,
    async killAll() {
      for (const script of started.splice(0)) {
        if (script.child.exitCode === null && script.child.signalCode === null) {
          script.child.kill('SIGKILL');
          await script.exited();
        }
      }
    },
  };
}
