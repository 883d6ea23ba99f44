/**
 * Fault injection for consumer tests: the next N messaging API calls (optionally only those
 * under a path prefix, optionally only a share of them) answer 500, 503, 429, hang, lose their
 * connection before (`reset`) or after (`lose-reply`) the call is acted upon, or answer
 * normally but without a Date header. A consumer's client must retry 5xx and 429 (honouring
 * Retry-After), time out on a hang, retry a reset connection, and not depend on a Date header;
 * and it must not repeat a call that is not idempotent (submit-invoice) when its reply is lost,
 * since the work may be done: `lose-reply` is that case, the work certainly done. These faults
 * let a test prove it.
 * Hangs use wall time, not the provider clock: they exercise the client's own timeouts.
 *
 * Faults are tried in the order they were added; each takes a matching call with probability
 * `rate` (drawn from its own PRNG, seeded by `seed`, so a run can be replayed), until it has
 * taken `count` calls.
 */
import type { Request, RequestHandler, Response } from 'express';
import { sendProblem } from './problem.ts';
import { seededRandom } from './seeded-random.ts';

export const FAULT_MODES = ['500', '503', '429', 'hang', 'reset', 'lose-reply', 'undated'] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

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
  /** The share of matching calls this fault takes, in (0, 1]. @default 1 (every one) */
  rate?: number | undefined;
  /** Seed of the draws behind `rate`. @default a random one */
  seed?: number | undefined;
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

interface ActiveFault {
  input: FaultInput;
  draw: () => number;
}

export function createFaultInjector(): FaultInjector {
  let faults: ActiveFault[] = [];
  const hanging = new Set<Response>();
  const timers = new Set<NodeJS.Timeout>();

  function take(path: string): FaultInput | undefined {
    const fault = faults.find(
      ({ input, draw }) =>
        (input.pathPrefix === undefined || path.startsWith(input.pathPrefix)) &&
        (input.rate === undefined || draw() < input.rate),
    );
    if (fault === undefined) return undefined;
    fault.input.count -= 1;
    if (fault.input.count <= 0) faults = faults.filter((f) => f !== fault);
    return fault.input;
  }

  return {
    add(fault) {
      const seed = fault.seed ?? Math.floor(Math.random() * 2 ** 32);
      faults.push({ input: { ...fault }, draw: seededRandom(seed) });
    },
    clear() {
      faults = [];
    },
    list: () => faults.map((f) => ({ ...f.input })),
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
          case 'reset':
            // The connection drops without an answer; the call was not acted upon.
            req.socket.destroy();
            return;
          case 'lose-reply':
            loseReply(req, res);
            return next();
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

/**
 * Every way a response puts bytes on the wire. Express's res.json, res.send, res.status().end()
 * and the problem mapper all end in `end` (headers go out with the first write or the end);
 * a streamed document writes; an interim answer (100 Continue, 103 Early Hints) or flushed
 * headers would be the first byte of an answer too.
 */
const ANSWERING_METHODS = [
  'writeHead',
  'flushHeaders',
  'end',
  'writeContinue',
  'writeEarlyHints',
  'writeProcessing',
] as const;

/**
 * Lets the call run to the end of its route (a submit creates its message, whose webhooks go
 * out), then cuts the connection at the first attempt to answer: the client sees the
 * connection close before any byte, exactly as when a reply is lost on the way back. Done on
 * this one response object, so nothing else is affected.
 */
function loseReply(req: Request, res: Response): void {
  const cut = () => {
    req.socket.destroy();
  };
  const methods = res as unknown as Record<(typeof ANSWERING_METHODS)[number], unknown>;
  for (const method of ANSWERING_METHODS) {
    methods[method] = () => {
      cut();
      return res;
    };
  }
  // false: a stream piped into the answer waits for a drain that never comes, and stops at the
  // close instead of generating the rest of a (possibly huge) document.
  res.write = () => {
    cut();
    return false;
  };
}
