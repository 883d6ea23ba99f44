/**
 * The worker: claims due events from the inbox and runs them through a p-queue bounded by
 * WORKER_CONCURRENCY. Job state lives in the database; the queue only bounds concurrency.
 *
 *   claim (pending -> processing, attempts + 1, leased)
 *     -> handler resolves             -> done | skipped
 *     -> handler throws, transient    -> pending, next attempt after a backoff
 *     -> permanent, or last attempt   -> dead (listed by /admin/events?state=dead, replayable)
 *
 * The claim takes at most one event per message and none of a message already in processing,
 * so events of one message never run at once while different messages run in parallel.
 */
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import type { EventStore, Settlement, StoredEvent } from '../store/store.ts';
import { type BackoffOptions, eventRetryDelay } from './backoff.ts';
import { describeError, isPermanent } from './errors.ts';
import type { EventHandler } from './handle-event.ts';

export interface WorkerOptions {
  events: EventStore;
  handle: EventHandler;
  logger: Logger;
  /** @default Date.now */
  now?: () => number;
  /** Events handled at once. @default 8 */
  concurrency?: number;
  /** Attempts before an event is dead-lettered. @default 10 */
  maxAttempts?: number;
  /** How long a claim holds before another worker may take the event over. @default 300000 */
  leaseMs?: number;
  /** How often an idle worker looks for due events. @default 500 */
  pollIntervalMs?: number;
  /** Delay before retrying a failed event. @default eventRetryDelay */
  retryDelay?: (attempt: number, options?: BackoffOptions) => number;
  /** Told how each event ended its turn (metrics). @default nothing */
  onSettled?: (event: StoredEvent, state: Settlement['state'], seconds: number) => void;
}

export interface Worker {
  /** Releases claims left by a crash of this node, then starts claiming. */
  start(): Promise<void>;
  /** Stops claiming and waits for the events in hand. */
  stop(): Promise<void>;
  /** Wakes the loop now (new event stored) instead of at the next poll. */
  notify(): void;
  isRunning(): boolean;
  /** Resolves once no event is due or in hand: for tests and one-shot runs. */
  drain(): Promise<void>;
}

export function createWorker(options: WorkerOptions): Worker {
  const { events, handle, logger } = options;
  const now = options.now ?? Date.now;
  const concurrency = options.concurrency ?? 8;
  const maxAttempts = options.maxAttempts ?? 10;
  const leaseMs = options.leaseMs ?? 300_000;
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

  async function run(event: StoredEvent) {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    const log = logger.child({
      eventId: event.eventId,
      action: event.action,
      messageId: event.messageId,
    });
    try {
      const state = await handle(event);
      await events.settle(event.eventId, { state }, now());
      onSettled(event, state, seconds());
      log.debug({ state }, 'event handled');
    } catch (error) {
      const message = describeError(error);
      if (isPermanent(error) || event.attempts >= maxAttempts) {
        await events.settle(event.eventId, { state: 'dead', error: message }, now());
        onSettled(event, 'dead', seconds());
        log.error({ err: error, attempts: event.attempts }, 'event dead-lettered');
      } else {
        const nextAttemptAt = now() + retryDelay(event.attempts);
        await events.settle(
          event.eventId,
          { state: 'pending', nextAttemptAt, error: message },
          now(),
        );
        onSettled(event, 'pending', seconds());
        log.warn(
          { attempts: event.attempts, error: message, nextAttemptAt },
          'event will be retried',
        );
      }
    } finally {
      notify();
    }
  }

  /** Claims as many due events as there is room for; returns how many. */
  async function claimOnce(): Promise<number> {
    const room = concurrency - queue.size - queue.pending;
    if (room <= 0) return 0;
    const claimed = await events.claimDue({ now: now(), limit: room, leaseMs });
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
      const released = await events.releaseClaims(now());
      if (released > 0) logger.warn({ released }, 'took back events left in processing by a crash');
      running = true;
      loop = loopForever();
    },
    async stop() {
      running = false;
      notify();
      await loop;
      await queue.onIdle();
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
