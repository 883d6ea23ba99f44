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
 * A sink with deliverMany() (the journal: one fsync for many lines) gets the notices of one
 * claim in one call, and those it took are marked delivered in one store call (one commit).
 * While such a call is in hand the loop claims nothing new for up to BATCH_GATHER_MS, so the
 * notices that fall due meanwhile make the next call one batch rather than a call each; past
 * that (a target slow on a batch) the free slots go to other streams as usual.
 *
 * The webhook path never waits for it: notices are queued with their status writes, and this
 * loop reads the queue on its own time. A crash between the sink's answer and markDelivered
 * hands the notice out again at the next start; its id lets the sink ignore it.
 *
 * Each notice's delivery is a span of the trace it was queued in, and the sink's call runs in
 * a context its own requests join (notice-spans.ts says which, for a batch).
 */
import { context } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { eventRetryDelay } from '../loop/backoff.ts';
import { createSlottedLoop } from '../loop/slotted-loop.ts';
import type { SinkOutboxRow, SinkOutboxStore } from '../store/sink-outbox.ts';
import type { StatusNotice } from '../store/status-notice.ts';
import { outcomeAt } from './batch-outcomes.ts';
import type { StatusSink } from './define-sink.ts';

type DeliverMany = NonNullable<StatusSink['deliverMany']>;

import { callWithin, SinkStoppedError, sinkErrorText } from './delivery-deadline.ts';
import { startNoticeSpans } from './notice-spans.ts';
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

/**
 * How long the loop holds back its next claim while a deliverMany() call is in hand: longer
 * than a batch takes a local target (an fsync: milliseconds), so the notices due meanwhile
 * gather into the next call; short enough that a target stuck on a batch keeps the other
 * streams waiting no longer than the loop's own poll would.
 */
export const BATCH_GATHER_MS = 200;

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

  /** One deliverMany() call for `rows`; the notices it took are marked delivered together. */
  async function deliverBatch(deliverMany: DeliverMany, rows: SinkOutboxRow[]): Promise<void> {
    const started = performance.now();
    const spans = startNoticeSpans(rows);
    const cut = new AbortController();
    inHand.add(cut);
    let outcomes: unknown;
    let failure: { error: unknown } | undefined;
    try {
      const notices = rows.map((row) => row.notice);
      outcomes = await callWithin(
        (signal) => context.with(spans.call, () => deliverMany.call(sink, notices, { signal })),
        deadlineMs,
        cut,
      );
    } catch (error) {
      failure = { error };
    } finally {
      inHand.delete(cut);
    }
    const ms = performance.now() - started;
    const delivered: SinkOutboxRow[] = [];
    const refused: Promise<void>[] = [];
    for (const [i, row] of rows.entries()) {
      const outcome =
        failure === undefined
          ? outcomeAt(outcomes, i)
          : { status: 'rejected' as const, reason: failure.error };
      spans.settle(i, outcome);
      if (outcome.status === 'fulfilled') {
        delivered.push(row);
      } else {
        options.onDelivery?.('failed', ms);
        refused.push(context.with(spans.contextOf(i), () => recordFailure(row, outcome.reason)));
      }
    }
    try {
      await Promise.all([
        delivered.length === 0
          ? undefined
          : outbox.markDelivered(
              delivered.map((row) => row.seq),
              now(),
            ),
        ...refused,
      ]);
    } finally {
      // Once recorded (or not: the store is away, and the loop says so), so a notice's span
      // covers its delivery and its record.
      spans.end();
    }
    for (const _ of delivered) options.onDelivery?.('delivered', ms);
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

  /**
   * A sink with deliver() alone, as a batch of one: so both kinds take the one path, through
   * the deadline to the recorded outcome.
   */
  const deliverOne: DeliverMany = (notices, callOptions) =>
    sink.deliver(notices[0] as StatusNotice, callOptions).then(() => [{ status: 'fulfilled' }]);

  // A batch sink's notices: the slotted loop begins the rows of one claim one after the other
  // in the same tick (slotted-loop.ts), so the rows gathered until the next microtask are
  // exactly one claim's, and go out in one deliverMany() call. Each row keeps its own slot
  // and its own promise (its end frees the slot), settled when the batch is recorded.
  const deliverMany = sink.deliverMany;
  let gathering: { rows: SinkOutboxRow[]; done: Promise<void> } | undefined;
  // deliverMany() calls in hand, and when the newest began: the next claim waits for them.
  let batchesInHand = 0;
  let lastBatchAt = 0;

  function joinBatch(many: DeliverMany, row: SinkOutboxRow) {
    if (gathering === undefined) {
      const rows: SinkOutboxRow[] = [];
      batchesInHand++;
      lastBatchAt = performance.now();
      const done = Promise.resolve()
        .then(() => {
          gathering = undefined;
          return deliverBatch(many, rows);
        })
        .finally(() => {
          batchesInHand--;
        });
      gathering = { rows, done };
    }
    gathering.rows.push(row);
    return gathering.done;
  }

  async function claim(room: number): Promise<SinkOutboxRow[]> {
    // A batch in hand: its end wakes the loop (its rows' slots free up) and the claim then
    // takes everything due meanwhile; past BATCH_GATHER_MS the loop's next turn claims anyway.
    if (batchesInHand > 0 && performance.now() - lastBatchAt < BATCH_GATHER_MS) return [];
    return outbox.claimDue(now(), room, leaseMs);
  }

  const loop = createSlottedLoop<SinkOutboxRow>({
    slots: options.concurrency ?? DEFAULT_SINK_CONCURRENCY,
    pollMs: options.pollMs ?? 500,
    claim,
    run: (row) =>
      deliverMany === undefined ? deliverBatch(deliverOne, [row]) : joinBatch(deliverMany, row),
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
