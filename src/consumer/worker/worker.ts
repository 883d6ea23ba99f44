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
 * renewed while the handler works and released when the event is settled.
 */
import { setTimeout as delay } from 'node:timers/promises';
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import { ClaimLostError, holdClaim } from '../claims/held-claim.ts';
import { type BackoffOptions, eventRetryDelay } from '../loop/backoff.ts';
import type { ClaimStore } from '../store/claims.ts';
import type { ClaimedEvent, EventStore, Settlement, StoredEvent } from '../store/events.ts';
import { describeError, isPermanent, localFault } from './errors.ts';
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
  const { events, claims, handle, logger, holder } = options;
  const now = options.now ?? Date.now;
  const concurrency = options.concurrency ?? 32;
  const maxAttempts = options.maxAttempts ?? 10;
  const leaseMs = options.leaseMs ?? 30_000;
  const holderGone = options.holderGone ?? (() => false);
  const limit = options.limit ?? (() => concurrency);
  // Aborted at stop(): handlers in hand see it and end their turn early.
  const shutdown = new AbortController();
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const retryDelay = options.retryDelay ?? eventRetryDelay;
  const queue = new PQueue({ concurrency });

  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  const notify = () => wake?.();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  const onSettled = options.onSettled ?? (() => {});

  async function run(event: ClaimedEvent) {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    const log = logger.child({
      eventId: event.eventId,
      action: event.action,
      messageId: event.messageId,
    });
    const held = holdClaim({
      claims,
      claim: event.claim,
      leaseMs,
      now,
      logger: log,
      signal: shutdown.signal,
    });
    // The outcome is written while the claim is still held (and renewed). A store that refuses
    // the write (a full disk, a lock held elsewhere) is asked again soon, not left to the end of
    // the lease; if the claim is lost meanwhile, its new holder handles the event.
    const settle = async (settlement: Settlement): Promise<boolean> => {
      for (let attempt = 0; ; attempt++) {
        try {
          const settled = await events.settle(event, settlement, now());
          if (settled) onSettled(event, settlement.state, seconds());
          else
            log.warn(
              { state: settlement.state },
              'claim lost before settling; left to its new holder',
            );
          return settled;
        } catch (error) {
          if (held.signal.aborted) {
            log.error(
              { err: error },
              'could not write the outcome; the event is taken again later',
            );
            return false;
          }
          const delayMs = Math.min(250 * 2 ** attempt, 5000);
          log.warn({ err: error, delayMs }, 'could not write the outcome; trying again');
          await delay(delayMs, undefined, { signal: held.signal }).catch(() => {});
        }
      }
    };
    try {
      let state: Settlement['state'];
      try {
        state = await handle(event, held);
      } catch (error) {
        // The error and what it wraps (`fetch failed <- connect ECONNREFUSED ...`), bounded: the
        // log lines below and the event's stored lastError.
        const message = describeError(error);
        // A full or read-only disk here is for the operator to fix, and said so in the log.
        const hint = localFault(error);
        const fault = hint === undefined ? {} : { localFault: hint };
        if (error instanceof ClaimLostError) {
          log.warn({ error: message }, 'stopped: another handler took the message over');
        } else if (isPermanent(error) || event.attempts >= maxAttempts) {
          if (await settle({ state: 'dead', error: message })) {
            log.error(
              { err: error, error: message, attempts: event.attempts, ...fault },
              'event dead-lettered',
            );
          }
        } else {
          const nextAttemptAt = now() + retryDelay(event.attempts);
          if (await settle({ state: 'pending', nextAttemptAt, error: message })) {
            log[hint === undefined ? 'warn' : 'error'](
              { attempts: event.attempts, error: message, nextAttemptAt, ...fault },
              'event will be retried',
            );
          }
        }
        return;
      }
      const dropBody = options.dropBodiesWhenDone === true;
      if (await settle({ state, dropBody })) log.debug({ state }, 'event handled');
    } finally {
      held.stop();
      notify();
    }
  }

  /** Claims as many due events as there is room for; returns how many. */
  async function claimOnce(): Promise<number> {
    const allowed = Math.min(concurrency, Math.max(1, limit()));
    const room = allowed - queue.size - queue.pending;
    if (room <= 0) return 0;
    const claimed = await events.claimDue({ now: now(), limit: room, leaseMs, holder });
    for (const event of claimed) {
      queue
        .add(() => run(event))
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
      if (claimed === 0 && running) await sleep(pollIntervalMs);
    }
  }

  return {
    async start() {
      if (running) return;
      let released = 0;
      for (const other of await claims.holders(now())) {
        if (holderGone(other)) released += await claims.releaseHolder(other);
      }
      if (released > 0) logger.warn({ released }, 'released claims of a process that died here');
      running = true;
      loop = loopForever();
    },
    async stop() {
      running = false;
      notify();
      await loop;
      await queue.onIdle();
    },
    abort() {
      shutdown.abort(new Error('the worker is shutting down'));
    },
    notify,
    isRunning: () => running,
    async drain() {
      for (;;) {
        await queue.onIdle();
        if ((await claimOnce()) === 0 && queue.size + queue.pending === 0) return;
      }
    },
  };
}
