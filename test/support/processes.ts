/** Runs a TypeScript entry point as its own Node process, as a user or cron would. */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

// Resolved here: the child may run in a temporary folder that has no node_modules.
const TSX = import.meta.resolve('tsx');

export interface RunningScript {
  child: ChildProcess;
  /** stdout and stderr so far, interleaved. */
  output(): string;
  /** Resolves with the exit code. */
  exited(): Promise<number>;
}

/** Starts `script` with exactly `env` (plus PATH): no .env, nothing inherited by accident. */
export function startScript(
  script: string,
  options: { args?: string[]; env?: Record<string, string>; cwd: string },
): RunningScript {
  const child = spawn(process.execPath, ['--import', TSX, script, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', ...options.env },
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
  options: { args?: string[]; env?: Record<string, string>; cwd: string },
): Promise<{ code: number; output: string }> {
  const running = startScript(script, options);
  const code = await running.exited();
  return { code, output: running.output() };
}
