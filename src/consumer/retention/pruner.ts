/**
 * The retention job: applies a RetentionPolicy to the store in small batches, in the
 * background of the worker's process. Each batch is one short transaction; its size adapts so
 * that a batch takes about `batchBudgetMs`, because a webhook that arrives meanwhile waits for
 * it (SQLite has one writer). Between batches the event loop runs whatever is waiting.
 *
 * Order of a run: events (their eventIds go to the dedupe record), then bodies, then dedupe
 * records past their period, then final messages (each one forgotten is passed to the
 * importer's forget hook), then freed pages back to the file system (SQLite).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { ForgottenMessage, PruneBatch, Store } from '../store/store.ts';
import { cutoffs, type RetentionPolicy } from './policy.ts';

export type PruneStep = 'bodies' | 'events' | 'eventIds' | 'messages' | 'pages';

export interface PruneReport {
  /** Rows (pages for `pages`) each step removed or emptied. */
  counts: Record<PruneStep, number>;
  batches: number;
  /** The longest batch, measured from its request to its answer. */
  longestBatchMs: number;
  /** True when stop() ended the run before it was through. */
  stopped: boolean;
}

export interface PrunerDeps {
  store: Pick<Store, 'retention'>;
  policy: RetentionPolicy;
  logger: Logger;
  now?: () => number;
  /** Called for each message record retention deletes (Importer.forget). */
  forget?: (message: ForgottenMessage) => Promise<void>;
  /** Called after each step of a run with what it did. */
  onPruned?: (step: PruneStep, count: number) => void;
  /** Called after each batch with its duration (metrics). */
  onBatch?: (step: PruneStep, ms: number) => void;
  /** Aimed-for duration of one batch. @default 10 */
  batchBudgetMs?: number;
}

const MIN_BATCH = 16;
const MAX_BATCH = 4096;

export interface Pruner {
  /** One pass over every step; concurrent calls share the run in progress. */
  run(): Promise<PruneReport>;
  /** Ends a run at its next batch boundary (shutdown). */
  stop(): Promise<void>;
}

export function createPruner(deps: PrunerDeps): Pruner {
  const now = deps.now ?? Date.now;
  const budget = deps.batchBudgetMs ?? 10;
  const { retention } = deps.store;
  // Rows and pages cost differently (a page moved by the vacuum is a page written).
  const sizes = { rows: 256, pages: 128 };
  let stopping = false;
  let running: Promise<PruneReport> | undefined;

  async function pass(): Promise<PruneReport> {
    const report: PruneReport = {
      counts: { bodies: 0, events: 0, eventIds: 0, messages: 0, pages: 0 },
      batches: 0,
      longestBatchMs: 0,
      stopped: false,
    };
    const until = cutoffs(deps.policy, now());

    // Repeats one kind of batch while it stops at its limit, resizing it to the budget.
    const drain = async (step: PruneStep, batch: (limit: number) => Promise<PruneBatch>) => {
      for (;;) {
        if (stopping) {
          report.stopped = true;
          return;
        }
        const limit = sizes[step === 'pages' ? 'pages' : 'rows'];
        const started = performance.now();
        const result = await batch(limit);
        const elapsed = performance.now() - started;
        report.batches += 1;
        report.longestBatchMs = Math.max(report.longestBatchMs, elapsed);
        report.counts[step] += result.count;
        deps.onBatch?.(step, elapsed);
        const kind = step === 'pages' ? 'pages' : 'rows';
        if (elapsed > budget) sizes[kind] = Math.max(MIN_BATCH, Math.floor(sizes[kind] / 2));
        else if (elapsed < budget / 4) sizes[kind] = Math.min(MAX_BATCH, sizes[kind] * 2);
        if (!result.more) break;
        await yieldToLoop();
      }
      deps.onPruned?.(step, report.counts[step]);
    };

    // Rows first, so no body is emptied only to be deleted with its row a moment later.
    await drain('events', (limit) =>
      retention.pruneEvents(until.events, limit, { rememberSince: until.eventIds }),
    );
    await drain('bodies', (limit) => retention.dropBodies(until.bodies, limit));
    await drain('eventIds', (limit) => retention.forgetEventIds(until.eventIds, limit));
    await drain('messages', async (limit) => {
      const batch = await retention.pruneMessages(until.messages, limit);
      for (const message of batch.forgotten) {
        // The record is gone already; what the hook failed to remove stays, which loses
        // nothing. Said once per message, so an operator can clean up by hand.
        await deps.forget?.(message).catch((error: unknown) => {
          deps.logger.warn({ err: error, ...message }, 'importer could not forget a message');
        });
      }
      return batch;
    });
    await drain('pages', (limit) => retention.reclaim(limit));

    const removed = Object.values(report.counts).some((n) => n > 0);
    (removed ? deps.logger.info : deps.logger.debug).call(
      deps.logger,
      {
        ...report.counts,
        batches: report.batches,
        longestBatchMs: Math.round(report.longestBatchMs * 10) / 10,
      },
      report.stopped ? 'retention run stopped' : 'retention run done',
    );
    return report;
  }

  return {
    run() {
      running ??= pass().finally(() => {
        running = undefined;
      });
      return running;
    },
    async stop() {
      stopping = true;
      await running?.catch(() => undefined);
    },
  };
}
