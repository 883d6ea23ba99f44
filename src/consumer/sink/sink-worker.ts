/**
 * Delivers the sink outbox to the status sink (docs/status-sink.md): a loop beside the worker
 * that claims the due head of each stream (one message side and kind), hands the notices to
 * the sink one at a time, oldest first, and records each outcome. A notice the sink refuses
 * comes back after a backoff (backoff.ts's schedule, without end: a notice is never dropped),
 * and holds back the later notices of its stream only.
 *
 * The webhook path never waits for it: notices are queued with their status writes, and this
 * loop reads the queue on its own time. A crash between the sink's answer and markDelivered
 * hands the notice out again at the next start; its id lets the sink ignore it.
 */
import type { Logger } from 'pino';
import { eventRetryDelay } from '../loop/backoff.ts';
import { createWakeableLoop } from '../loop/wakeable-loop.ts';
import type { SinkOutboxRow, SinkOutboxStore } from '../store/sink-outbox.ts';
import type { StatusSink } from './define-sink.ts';

/**
 * How long a claimed notice is this process's. A process killed with a notice in hand leaves
 * it leased that long; then any process hands it out again.
 */
export const SINK_LEASE_MS = 60_000;

export interface SinkWorkerOptions {
  outbox: SinkOutboxStore;
  sink: StatusSink;
  logger: Logger;
  now: () => number;
  /** How often the loop looks for due notices when it was not woken. @default 500 */
  pollMs?: number;
  /**
   * Notices claimed at a time. One by default: a claimed notice is leased, and a stop between
   * claiming and delivering would leave the rest of a batch leased (invisible to the next
   * start) until their lease ends. @default 1
   */
  batchSize?: number;
  /** How long a claimed notice is leased to this process. @default 60000 */
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
  /** Stops after the notice in hand. */
  stop(): Promise<void>;
}

const MAX_ERROR_LENGTH = 2000;

export function createSinkWorker(options: SinkWorkerOptions): SinkWorker {
  const { outbox, sink, logger, now } = options;
  const pollMs = options.pollMs ?? 500;
  const batchSize = options.batchSize ?? 1;
  const leaseMs = options.leaseMs ?? SINK_LEASE_MS;

  async function deliver(row: SinkOutboxRow): Promise<void> {
    const started = performance.now();
    try {
      await sink.deliver(row.notice);
      await outbox.markDelivered(row.seq, now());
      options.onDelivery?.('delivered', performance.now() - started);
    } catch (error) {
      const attempts = row.attempts + 1;
      const delay = eventRetryDelay(attempts, {
        ...(options.retryBaseMs === undefined ? {} : { baseMs: options.retryBaseMs }),
        ...(options.retryMaxMs === undefined ? {} : { maxMs: options.retryMaxMs }),
      });
      const message = (error instanceof Error ? error.message : String(error)).slice(
        0,
        MAX_ERROR_LENGTH,
      );
      options.onDelivery?.('failed', performance.now() - started);
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
  }

  const loop = createWakeableLoop(async () => {
    let rows: SinkOutboxRow[] = [];
    try {
      rows = await outbox.claimDue(now(), batchSize, leaseMs);
      // Every claimed notice is delivered, even when stopping: the sink's own timeouts
      // bound the wait, and the shutdown deadline bounds the whole stop.
      for (const row of rows) await deliver(row);
    } catch (error) {
      // The store is away (a PostgreSQL restart): the claimed notices come back when their
      // lease ends; try again at the next turn.
      logger.warn({ err: error }, 'status sink outbox unavailable; retrying');
    }
    // A full batch means more may be due at once.
    return rows.length >= batchSize;
  }, pollMs);

  return {
    start: loop.start,
    notify: loop.notify,
    async stop() {
      await loop.stop();
      await sink.close?.();
    },
  };
}
