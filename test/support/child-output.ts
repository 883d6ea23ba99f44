/**
 * Child processes whose stdout and stderr are read as one text, interleaved as a terminal shows
 * them: shell blocks of the guides, `npm run dev`, the benchmark's consumer. A module of its own,
 * free of vitest and test helpers, so that bench/ can load it under plain Node.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { once } from 'node:events';

export interface ProcessWithOutput {
  child: ChildProcess;
  /** stdout and stderr so far, interleaved. */
  output(): string;
}

/** Spawns `file` with stdin closed, collecting stdout and stderr. */
export function spawnWithOutput(
  file: string,
  args: readonly string[],
  options: Omit<SpawnOptions, 'stdio'>,
): ProcessWithOutput {
  const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return { child, output: () => output };
}

export interface ProcessGroup extends ProcessWithOutput {
  /** Resolves with the leader's exit code (null when a signal ended it). */
  exited(): Promise<number | null>;
  /**
   * SIGTERM to the whole group, as Ctrl-C in a terminal signals every process of the job;
   * resolves once the leader has exited.
   */
  stop(): Promise<void>;
}

/**
 * Starts `file` as the leader of a process group of its own, so that stop() stops what it
 * started too (`npm run dev` is npm, sh and node; a shell block runs its commands as children).
 */
export function startProcessGroup(
  file: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): ProcessGroup {
  const started = spawnWithOutput(file, args, { ...options, detached: true });
  const { child } = started;
  // Listened for now: the process may exit before anyone asks.
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return {
    ...started,
    exited: () => exit,
    async stop() {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        process.kill(-child.pid, 'SIGTERM');
      }
      await exit;
    },
  };
}
