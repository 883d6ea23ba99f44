/**
 * Fault injection for consumer tests: the next N messaging API calls (optionally only those
 * under a path prefix) answer 500, 503, 429, hang, or answer normally but without a Date
 * header. A consumer's client must retry 5xx and 429 (honouring Retry-After), time out on a
 * hang, and not depend on a Date header; these faults let a test prove it.
 * Hangs use wall time, not the provider clock: they exercise the client's own timeouts.
 */
import type { RequestHandler, Response } from 'express';
import { sendProblem } from './problem.ts';

export type FaultMode = '500' | '503' | '429' | 'hang' | 'undated';

export interface FaultInput {
  /** How many matching calls the fault answers. */
  count: number;
  mode: FaultMode;
  /** Sent as Retry-After on 503 (only when given) and 429. @default 1 for 429 */
  retryAfterSeconds?: number | undefined;
  /** Only calls whose path starts with this are affected. @default every call */
  pathPrefix?: string | undefined;
  /** A hang ends after this long and the call is then answered normally. @default never */
  hangMs?: number | undefined;
}

export interface FaultInjector {
  add(fault: FaultInput): void;
  clear(): void;
  /** Faults still waiting for calls, with their remaining counts. */
  list(): FaultInput[];
  middleware(): RequestHandler;
  /** Ends every hanging call by destroying its connection, so a server can close. */
  close(): void;
}

export function createFaultInjector(): FaultInjector {
  let faults: FaultInput[] = [];
  const hanging = new Set<Response>();
  const timers = new Set<NodeJS.Timeout>();

  function take(path: string): FaultInput | undefined {
    const fault = faults.find((f) => f.pathPrefix === undefined || path.startsWith(f.pathPrefix));
    if (fault === undefined) return undefined;
    fault.count -= 1;
    if (fault.count <= 0) faults = faults.filter((f) => f !== fault);
    return fault;
  }

  return {
    add(fault) {
      faults.push({ ...fault });
    },
    clear() {
      faults = [];
    },
    list: () => faults.map((f) => ({ ...f })),
    middleware() {
      return (req, res, next) => {
        const fault = take(req.path);
        if (fault === undefined) return next();
        switch (fault.mode) {
          case '500':
            return sendProblem(res, 500, 'Injected fault: internal server error.');
          case '503':
            if (fault.retryAfterSeconds !== undefined)
              res.set('Retry-After', String(fault.retryAfterSeconds));
            return sendProblem(res, 503, 'Injected fault: service unavailable.');
          case '429':
            res.set('Retry-After', String(fault.retryAfterSeconds ?? 1));
            return sendProblem(res, 429, 'Injected fault: too many requests.');
          case 'undated':
            res.removeHeader('Date');
            res.sendDate = false;
            return next();
          case 'hang': {
            hanging.add(res);
            res.on('close', () => hanging.delete(res));
            if (fault.hangMs !== undefined) {
              const timer = setTimeout(() => {
                timers.delete(timer);
                hanging.delete(res);
                if (!res.destroyed) next();
              }, fault.hangMs);
              timers.add(timer);
            }
            return;
          }
        }
      };
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const res of hanging) res.socket?.destroy();
      hanging.clear();
    },
  };
}
