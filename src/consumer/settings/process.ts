/** The configuration section of the process as a whole: what runs in it, its logs, its shutdown. */
import { type LevelWithSilent, levels } from 'pino';
import type { Reader } from './reader.ts';

export type LogLevel = LevelWithSilent;

export type Role = 'all' | 'ingress' | 'worker';
const ROLES: readonly Role[] = ['all', 'ingress', 'worker'];

// pino's own names, so the list cannot drift from what the logger accepts.
const LOG_LEVELS: readonly string[] = [...Object.keys(levels.values), 'silent'];

export interface ProcessSettings {
  /** @default 'info' */
  logLevel: LogLevel;
  /** How long shutdown waits for in-flight work before giving up. @default 10000 */
  shutdownTimeoutMs: number;
  /**
   * What this process runs: `all` (webhook ingress and worker), `ingress` (webhooks only, for
   * replicas that only receive), `worker` (the worker and the operations routes only; it finds
   * new events by polling). @default 'all'
   */
  role: Role;
}

export function readLogLevel(read: Reader): Pick<ProcessSettings, 'logLevel'> {
  return {
    logLevel: read.string('LOG_LEVEL', 'info', (v) =>
      LOG_LEVELS.includes(v) ? undefined : `must be one of ${LOG_LEVELS.join(', ')}`,
    ) as LogLevel,
  };
}

export function readProcessSettings(read: Reader): Omit<ProcessSettings, 'logLevel'> {
  return {
    shutdownTimeoutMs: read.integer('SHUTDOWN_TIMEOUT_MS', 10_000, { min: 0 }),
    role: read.string('ROLE', 'all', (v) =>
      (ROLES as readonly string[]).includes(v) ? undefined : `must be one of ${ROLES.join(', ')}`,
    ) as Role,
  };
}
