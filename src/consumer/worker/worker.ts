/**
 * The worker: claims due events from the inbox and runs them through a p-queue bounded by
 * WORKER_CONCURRENCY. Job state lives in the database; the queue only bounds concurrency.
 *
 *   claim (pending -> processing, attempts + 1, with the message's claim)
 *     -> handler resolves             -> done | skipped
 *     -> handler throws, transient    -> pending, next attempt after a backoff
 *     -> permanent, or last attempt   -> dead (listed by /admin/events?state=dead, replayable)
 *
 * An event is claimed together with its message's claim (store.ts), which every handler of a
 * message takes: events of one message never run at once, nor beside a reconciliation or a
 * replica handling the same message, while different messages run in parallel. The claim is
 * renewed while the handler works and released when the event is settled. One event's turn,
 * from its claim to its written outcome, is event-turn.ts.
 */
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import { type BackoffOptions, eventRetryDelay } from '../loop/backoff.ts';
import type { ClaimStore } from '../store/claims.ts';
import type { EventStore, Settlement, StoredEvent } from '../store/events.ts';
import { createEventTurn } from './event-turn.ts';
import type { EventHandler } from './handle-event.ts';

export interface WorkerOptions {
  events: EventStore;
  claims: ClaimStore;
  handle: EventHandler;
  logger: Logger;
  /** Names this worker in the claims it takes (see claims/claim-holder.ts). */
  holder: string;
  /**
   * Whether a claim's holder is a process of this host that cannot be running any more; its
   * claims are released at start instead of waiting for their leases. @default never
   */
  holderGone?: (holder: string) => boolean;
  /** @default Date.now */
  now?: () => number;
  /** Events handled at once. @default 32 */
  concurrency?: number;
  /** Attempts before an event is dead-lettered. @default 10 */
  maxAttempts?: number;
  /**
   * Lease of a message claim; renewed every third of it while the event is handled, so it
   * only bounds how long a crashed holder's messages wait. @default 30000
   */
  leaseMs?: number;
  /** How often an idle worker looks for due events. @default 500 */
  pollIntervalMs?: number;
  /** Delay before retrying a failed event. @default eventRetryDelay */
  retryDelay?: (attempt: number, options?: BackoffOptions) => number;
  /**
   * How many events may be in hand right now, at most `concurrency`: the pacer that yields to
   * the webhook ingress sharing this event loop (pacer.ts). @default always `concurrency`
   */
  limit?: () => number;
  /** Keep no raw body once an event is done or skipped (RETENTION_BODY_DAYS=0). @default false */
  dropBodiesWhenDone?: boolean;
  /** Told how each event ended its turn (metrics). @default nothing */
  onSettled?: (event: StoredEvent, state: Settlement['state'], seconds: number) => void;
}

export interface Worker {
  /** Releases claims left by dead processes of this host, then starts claiming. */
  start(): Promise<void>;
  /** Stops claiming and waits for the events in hand. */
  stop(): Promise<void>;
  /** Tells the handlers in hand to give up now (a shutdown deadline); stop() still waits. */
  abort(): void;
  /** Wakes the loop now (new event stored) instead of at the next poll. */
  notify(): void;
  isRunning(): boolean;
  /** Resolves once no event is due or in hand: for tests and one-shot runs. */
  drain(): Promise<void>;
}

export function createWorker(options: WorkerOptions): Worker {
  const { events, claims, logger, holder } = options;
  const now = options.now ?? Date.now;
  const concurrency = options.concurrency ?? 32;
  const leaseMs = options.leaseMs ?? 30_000;
  const limit = options.limit ?? (() => concurrency);
  // Aborted at stop(): handlers in hand see it and end their turn early.
  const shutdown = new AbortController();
  const queue = new PQueue({ concurrency });

  let running = false;
  let loop: Promise<void> | undefined;
  const idle = createIdleWait(options.pollIntervalMs ?? 500);

  const runTurn = createEventTurn({
    events,
    claims,
    handle: options.handle,
    logger,
    now,
    maxAttempts: options.maxAttempts ?? 10,
    leaseMs,
    retryDelay: options.retryDelay ?? eventRetryDelay,
    dropBodiesWhenDone: options.dropBodiesWhenDone === true,
    onSettled: options.onSettled ?? (() => {}),
    signal: shutdown.signal,
    onTurnEnd: idle.wake,
  });

  /** Claims as many due events as there is room for; returns how many. */
  async function claimOnce(): Promise<number> {
    const room = roomLeft(queue, concurrency, limit());
    if (room <= 0) return 0;
    // A claim reads past the due events of the messages in hand (their claims are live) before
    // it finds others, so it waits for a quarter of the room at least rather than claiming for
    // each slot as it frees: about half as many claims in a drain.
    const inHand = queue.size + queue.pending;
    if (inHand > 0 && room < Math.max(1, Math.floor((room + inHand) / 4))) return 0;
    const startedAt = now();
    const claimed = await events.claimDue({ now: startedAt, limit: room, leaseMs, holder });
    const timing = { startedAt, endedAt: now(), batch: claimed.length };
    for (const event of claimed) {
      queue
        .add(() => runTurn(event, timing))
        .catch((error: unknown) => {
          logger.error({ err: error, eventId: event.eventId }, 'could not settle event');
        });
    }
    return claimed.length;
  }

  async function loopForever() {
    while (running) {
      let claimed = 0;
      try {
        claimed = await claimOnce();
      } catch (error) {
        logger.error({ err: error }, 'claiming events failed');
      }
      if (claimed === 0 && running) await idle.sleep();
    }
  }

  return {
    async start() {
      if (running) return;
      await releaseGoneHolders({ claims, holderGone: options.holderGone, now, logger });
      running = true;
      loop = loopForever();
    },
    async stop() {
      running = false;
      idle.wake();
      await loop;
      await queue.onIdle();
    },
    abort: () => shutdown.abort(new Error('the worker is shutting down')),
    notify: idle.wake,
    isRunning: () => running,
    async drain() {
      for (;;) {
        await queue.onIdle();
        if ((await claimOnce()) === 0 && queue.size + queue.pending === 0) return;
      }
    },
  };
}

/**
 * How many more events may be claimed now: the limit (the pacer's, from 1 to `concurrency`)
 * less the events in hand, queued or running.
 */
function roomLeft(queue: PQueue, concurrency: number, limit: number): number {
  const allowed = Math.min(concurrency, Math.max(1, limit));
  return allowed - queue.size - queue.pending;
}

/**
 * The idle loop's wait: the poll interval, cut short by wake() (a new event stored, a turn
 * ended, stop()). A wake-up while nobody waits is not kept.
 */
function createIdleWait(pollIntervalMs: number): { sleep(): Promise<void>; wake(): void } {
  let wake: (() => void) | undefined;
  return {
    sleep: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, pollIntervalMs);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      }),
    wake: () => wake?.(),
  };
}

/**
 * Releases the claims of this host's processes that cannot be running any more (holderGone),
 * so that their messages are taken at once instead of when their leases end.
 */
async function releaseGoneHolders(deps: {
  claims: ClaimStore;
  /** @default never */
  holderGone: ((holder: string) => boolean) | undefined;
  now: () => number;
  logger: Logger;
}): Promise<void> {
  const { claims, now, logger } = deps;
  const holderGone = deps.holderGone ?? (() => false);
  let released = 0;
  for (const other of await claims.holders(now())) {
    if (holderGone(other)) released += await claims.releaseHolder(other);
  }
  if (released > 0) logger.warn({ released }, 'released claims of a process that died here');
}
