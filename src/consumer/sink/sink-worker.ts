/**
 * Delivers the sink outbox to the status sink (docs/status-sink.md): a loop beside the worker
 * that claims the due head of each stream (one message side and kind), hands the notices to
 * the sink several at once (`concurrency`, one per stream: the outbox hands out only a
 * stream's head, so each stream stays in order), and records each outcome. A notice the sink
 * refuses, or does not take within the delivery deadline, comes back after a backoff
 * (backoff.ts's schedule, without end: a notice is never dropped), and holds back the later
 * notices of its stream only: its slot is free again at the deadline at the latest
 * (delivery-deadline.ts), so a head that keeps failing or hanging delays another stream's
 * notices by one deadline at most, as long as fewer streams than slots are failing at once.
 *
 * The webhook path never waits for it: notices are queued with their status writes, and this
 * loop reads the queue on its own time. A crash between the sink's answer and markDelivered
 * hands the notice out again at the next start; its id lets the sink ignore it.
 */
import type { Logger } from 'pino';
import { eventRetryDelay } from '../loop/backoff.ts';
import { createSlottedLoop } from '../loop/slotted-loop.ts';
import type { SinkOutboxRow, SinkOutboxStore } from '../store/sink-outbox.ts';
import type { StatusSink } from './define-sink.ts';
import { deliverWithin, SinkStoppedError, sinkErrorText } from './delivery-deadline.ts';
import { DEFAULT_SINK_CONCURRENCY, DEFAULT_SINK_DELIVERY_TIMEOUT_MS } from './settings.ts';

/**
 * How much longer than the delivery deadline a claimed notice stays this process's: time to
 * record the outcome once the deadline passed, on a store that is slow to answer (a
 * PostgreSQL failover takes seconds). So a notice in hand is never handed to a second process
 * while the loop may still be waiting for it.
 */
export const SINK_LEASE_SLACK_MS = 30_000;

/**
 * The lease of a claimed notice for a delivery deadline: a process killed with it in hand
 * leaves it leased that long; then any process hands it out again.
 */
export function sinkLeaseMs(deliveryTimeoutMs: number): number {
  return deliveryTimeoutMs + SINK_LEASE_SLACK_MS;
}

/** The lease with the default delivery deadline: 60 s, as it was before the deadline. */
export const SINK_LEASE_MS = sinkLeaseMs(DEFAULT_SINK_DELIVERY_TIMEOUT_MS);

export interface SinkWorkerOptions {
  outbox: SinkOutboxStore;
  sink: StatusSink;
  logger: Logger;
  now: () => number;
  /** How often the loop looks for due notices when it was not woken. @default 500 */
  pollMs?: number;
  /** Notices handed to the sink at once, each of another stream (SINK_CONCURRENCY). @default 16 */
  concurrency?: number;
  /**
   * How long one deliver() call is waited for (SINK_DELIVERY_TIMEOUT_MS); past it the notice
   * counts as not delivered. @default 30000
   */
  deliveryTimeoutMs?: number;
  /** How long a claimed notice is leased to this process. @default sinkLeaseMs(deliveryTimeoutMs) */
  leaseMs?: number;
  /** First retry delay and its cap (backoff.ts). @default 2000 and 300000 */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Each outcome, for metrics. */
  onDelivery?: (outcome: 'delivered' | 'failed', ms: number) => void;
}

export interface SinkWorker {
  start(): void;
  /** Wakes the loop now (a status was just written). */
  notify(): void;
  /** Stops claiming, waits for the notices in hand (each within its deadline), closes the sink. */
  stop(): Promise<void>;
  /**
   * Gives up the notices in hand now (a shutdown past its deadline): their calls' signals
   * are aborted and each is recorded as not delivered, due again at once. stop() still waits.
   */
  abort(): void;
}

export function createSinkWorker(options: SinkWorkerOptions): SinkWorker {
  const { outbox, sink, logger, now } = options;
  const deadlineMs = options.deliveryTimeoutMs ?? DEFAULT_SINK_DELIVERY_TIMEOUT_MS;
  const leaseMs = options.leaseMs ?? sinkLeaseMs(deadlineMs);
  // One per notice in hand, to cut them all at a shutdown.
  const inHand = new Set<AbortController>();

  async function deliver(row: SinkOutboxRow): Promise<void> {
    const started = performance.now();
    const cut = new AbortController();
    inHand.add(cut);
    try {
      await deliverWithin(sink, row.notice, deadlineMs, cut);
    } catch (error) {
      options.onDelivery?.('failed', performance.now() - started);
      await recordFailure(row, error);
      return;
    } finally {
      inHand.delete(cut);
    }
    await outbox.markDelivered(row.seq, now());
    options.onDelivery?.('delivered', performance.now() - started);
  }

  async function recordFailure(row: SinkOutboxRow, error: unknown): Promise<void> {
    const attempts = row.attempts + 1;
    // Cut by our own shutdown: not the sink's doing, so due again at once at the next start.
    const delay =
      error instanceof SinkStoppedError
        ? 0
        : eventRetryDelay(attempts, {
            ...(options.retryBaseMs === undefined ? {} : { baseMs: options.retryBaseMs }),
            ...(options.retryMaxMs === undefined ? {} : { maxMs: options.retryMaxMs }),
          });
    const message = sinkErrorText(error);
    logger.warn(
      {
        noticeId: row.notice.id,
        messageId: row.notice.messageId,
        attempts,
        retryInMs: delay,
        err: message,
      },
      'status sink refused a notice; it comes back later',
    );
    await outbox.markFailed(row.seq, message, now() + delay, now());
  }

  const loop = createSlottedLoop<SinkOutboxRow>({
    slots: options.concurrency ?? DEFAULT_SINK_CONCURRENCY,
    pollMs: options.pollMs ?? 500,
    claim: (room) => outbox.claimDue(now(), room, leaseMs),
    run: deliver,
    // The store is away (a PostgreSQL restart): a notice whose outcome could not be recorded
    // comes back when its lease ends; the loop tries again at its next turn.
    onError: (error, during, row) =>
      logger.warn(
        { err: error, during, ...(row === undefined ? {} : { noticeId: row.notice.id }) },
        'status sink outbox unavailable; retrying',
      ),
  });

  return {
    start: loop.start,
    notify: loop.notify,
    async stop() {
      await loop.stop();
      await sink.close?.();
    },
    abort() {
      for (const cut of inHand) cut.abort(new SinkStoppedError());
    },
  };
}
