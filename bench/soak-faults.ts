/**
 * Faults the soak injects now and then, one at a time in turn:
 *   500    the next 5 messaging API calls answer 500
 *   503    the next 3 answer 503 with Retry-After: 1
 *   hang   the next call never answers (the consumer's API_TIMEOUT_MS ends it)
 *   reset  the next 3 lose their connection unanswered
 *   lock   another process (this one) holds the SQLite write lock for LOCK_MS, as a backup or
 *          an operator's sqlite3 shell would: webhooks meanwhile are answered 503 and the
 *          service sends them again a minute later
 * The API faults go through the simulator's fault injection (src/provider/faults.ts), so they
 * hit whatever calls the consumer makes next.
 */
import Database from 'better-sqlite3';
import { request } from 'undici';

export const FAULT_KINDS = ['500', '503', 'hang', 'reset', 'lock'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

const LOCK_MS = 2_000;

const API_FAULTS: Record<Exclude<FaultKind, 'lock'>, Record<string, unknown>> = {
  '500': { mode: '500', count: 5 },
  '503': { mode: '503', count: 3, retryAfterSeconds: 1 },
  hang: { mode: 'hang', count: 1 },
  reset: { mode: 'reset', count: 3 },
};

export interface FaultInjection {
  /** Faults injected so far, by kind. */
  counts: Record<FaultKind, number>;
  start(): void;
  /** Stops injecting, waits for a lock in progress, and clears API faults not yet taken. */
  stop(): Promise<void>;
}

export function createFaultInjection(options: {
  providerUrl: string;
  databasePath: string;
  kinds: readonly FaultKind[];
  everyMs: number;
  /** Reports a fault that could not be injected. */
  onError(what: string): void;
}): FaultInjection {
  const counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  let timer: NodeJS.Timeout | undefined;
  let turn = 0;
  let current: Promise<void> | undefined;

  async function admin(method: 'POST' | 'DELETE', body?: unknown) {
    const res = await request(`${options.providerUrl}/admin/faults`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} /admin/faults: ${res.statusCode}`);
  }

  async function holdLock() {
    // A connection of another process; it waits at most 1 s for the consumer's own writes.
    const db = new Database(options.databasePath, { timeout: 1_000 });
    try {
      db.exec('BEGIN IMMEDIATE');
      await new Promise((resolve) => setTimeout(resolve, LOCK_MS));
      db.exec('COMMIT');
    } finally {
      db.close();
    }
  }

  async function inject(kind: FaultKind) {
    if (kind === 'lock') await holdLock();
    else await admin('POST', API_FAULTS[kind]);
    counts[kind] += 1;
  }

  return {
    counts,
    start() {
      if (options.kinds.length === 0) return;
      timer ??= setInterval(() => {
        if (current !== undefined) return;
        const kind = options.kinds[turn % options.kinds.length] as FaultKind;
        turn += 1;
        current = inject(kind)
          .catch((error: unknown) => options.onError(`fault ${kind}: ${String(error)}`))
          .finally(() => {
            current = undefined;
          });
      }, options.everyMs);
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await current;
      await admin('DELETE');
    },
  };
}
