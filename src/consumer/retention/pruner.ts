/**
 * The retention job: applies a RetentionPolicy to the store in small batches, in the
 * background of the worker's process. Each batch is one short transaction bounded in rows and
 * in time (BatchBound): it stops once it has held the store for `batchBudgetMs`, because a
 * webhook that arrives meanwhile waits for it (SQLite has one writer). Each step sizes its
 * batches to that budget from the time the store reports for the last one (nextSize). Between
 * batches the event loop runs whatever is waiting.
 *
 * Order of a run: finished events (their eventIds go to the dedupe record), then dead events
 * nobody will act on any more, then bodies, then dedupe records past their period, then final
 * messages (each one forgotten is passed to the importer's forget hook), then the status
 * sink's delivered notices (as long as the events), then the submission outbox's settled
 * invoices (as long as final messages), then freed pages back to the file system (SQLite).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { BatchBound, ForgottenMessage, PruneBatch } from '../store/retention.ts';
import type { Store } from '../store/store.ts';
import { cutoffs, type RetentionPolicy } from './policy.ts';

export const PRUNE_STEPS = [
  'events',
  'dead',
  'bodies',
  'eventIds',
  'messages',
  'notices',
  'submissions',
  'pages',
] as const;
export type PruneStep = (typeof PRUNE_STEPS)[number];

/** One number per step, each `value`: a report's counts, the batch sizes. */
export function perStep(value: number): Record<PruneStep, number> {
  return Object.fromEntries(PRUNE_STEPS.map((step) => [step, value])) as Record<PruneStep, number>;
}

export interface PruneReport {
  /** Rows (pages for `pages`) each step removed or emptied. */
  counts: Record<PruneStep, number>;
  batches: number;
  /** The longest batch: how long it held the store, as the store measured it (PruneBatch.ms). */
  longestBatchMs: number;
  /** The step of that batch. */
  longestBatchStep: PruneStep | null;
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
  /** Called after each batch with how long it held the store (metrics). */
  onBatch?: (step: PruneStep, ms: number) => void;
  /**
   * How long one batch may hold the store: the store stops a batch once it has used it, and
   * each step sizes its batches to end within it. @default 10
   */
  batchBudgetMs?: number;
}

/** Rows (pages) of a step's first batch, and the range sizing keeps to. */
const FIRST_BATCH = 64;
const MIN_BATCH = 1;
const MAX_BATCH = 4096;

export interface Pruner {
  /** One pass over every step; concurrent calls share the run in progress. */
  run(): Promise<PruneReport>;
  /** Ends a run at its next batch boundary (shutdown). */
  stop(): Promise<void>;
}

export function createPruner(deps: PrunerDeps): Pruner {
  const now = deps.now ?? Date.now;
  const budgetMs = deps.batchBudgetMs ?? 10;
  const { retention } = deps.store;
  // Each step's rows cost differently (an event is several index entries, a dedupe record
  // one, a page moved by the vacuum a page written), so each keeps its own size, from run to
  // run.
  const sizes = perStep(FIRST_BATCH);
  let stopping = false;
  let running: Promise<PruneReport> | undefined;

  async function pass(): Promise<PruneReport> {
    const run: Run = { deps, report: emptyReport(), sizes, budgetMs, stopping: () => stopping };
    const until = cutoffs(deps.policy, now());
    for (const [step, batch] of stepsOfRun(retention, until, deps)) await drain(run, step, batch);
    logRun(deps.logger, run.report);
    return run.report;
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

type Batch = (bound: BatchBound) => Promise<PruneBatch>;

/** What the steps of one run share: the report they fill, the sizes kept from run to run. */
interface Run {
  deps: PrunerDeps;
  report: PruneReport;
  sizes: Record<PruneStep, number>;
  budgetMs: number;
  /** True once stop() was called. */
  stopping: () => boolean;
}

/** The steps of a run in their order (see the header), each with its kind of batch. */
function stepsOfRun(
  retention: Store['retention'],
  until: ReturnType<typeof cutoffs>,
  deps: PrunerDeps,
): Array<[PruneStep, Batch]> {
  const remember = { rememberSince: until.eventIds };
  return [
    // Rows first, so no body is emptied only to be deleted with its row a moment later.
    ['events', (bound) => retention.pruneEvents(until.events, bound, remember)],
    [
      'dead',
      (bound) =>
        retention.pruneDeadEvents(
          { settled: until.events, any: until.deadEvents },
          bound,
          remember,
        ),
    ],
    ['bodies', (bound) => retention.dropBodies(until.bodies, bound)],
    ['eventIds', (bound) => retention.forgetEventIds(until.eventIds, bound)],
    [
      'messages',
      async (bound) => {
        const batch = await retention.pruneMessages(until.messages, bound);
        for (const message of batch.forgotten) {
          // The record is gone already; what the hook failed to remove stays, which loses
          // nothing. Said once per message, so an operator can clean up by hand.
          await deps.forget?.(message).catch((error: unknown) => {
            deps.logger.warn({ err: error, ...message }, 'importer could not forget a message');
          });
        }
        return batch;
      },
    ],
    // Delivered notices are kept as long as the status changes (RETENTION_EVENT_DAYS).
    ['notices', (bound) => retention.pruneNotices(until.events, bound)],
    // Settled invoices of the submission outbox as long as final messages: until then the
    // same invoice number is answered with its message, never submitted again.
    ['submissions', (bound) => retention.pruneSubmissions(until.messages, bound)],
    ['pages', (bound) => retention.reclaim(bound)],
  ];
}

/** Repeats one kind of batch while there is more, resizing it to the budget. */
async function drain(run: Run, step: PruneStep, batch: Batch): Promise<void> {
  const { deps, report, sizes, budgetMs } = run;
  for (;;) {
    if (run.stopping()) {
      report.stopped = true;
      return;
    }
    const limit = sizes[step];
    const result = await batch({ limit, budgetMs });
    report.batches += 1;
    if (result.ms > report.longestBatchMs) {
      report.longestBatchMs = result.ms;
      report.longestBatchStep = step;
    }
    report.counts[step] += result.count;
    deps.onBatch?.(step, result.ms);
    sizes[step] = nextSize(limit, result, budgetMs);
    if (!result.more) break;
    await yieldToLoop();
  }
  deps.onPruned?.(step, report.counts[step]);
}

function emptyReport(): PruneReport {
  return {
    counts: perStep(0),
    batches: 0,
    longestBatchMs: 0,
    longestBatchStep: null,
    stopped: false,
  };
}

/** One line per run: info when it removed something, debug otherwise. */
function logRun(logger: Logger, report: PruneReport): void {
  const removed = Object.values(report.counts).some((n) => n > 0);
  (removed ? logger.info : logger.debug).call(
    logger,
    {
      ...report.counts,
      batches: report.batches,
      longestBatchMs: Math.round(report.longestBatchMs * 10) / 10,
      longestBatchStep: report.longestBatchStep,
    },
    report.stopped ? 'retention run stopped' : 'retention run done',
  );
}

/**
 * The next batch's size, from the batch's work (PruneBatch.workMs: its time before the commit,
 * which costs the same whatever the size): halved after a batch whose work used its whole
 * budget (the store stopped it there), doubled after one that stopped at its limit with its work
 * in under half of it (a batch that ran out of rows says nothing about its size). So a batch
 * works from half the budget to all of it, the store's own stop bounds the one that meets slow
 * rows, and its commit comes on top.
 */
export function nextSize(limit: number, batch: PruneBatch, budgetMs: number): number {
  if (batch.workMs >= budgetMs) return Math.max(MIN_BATCH, Math.floor(limit / 2));
  if (batch.more && batch.workMs < budgetMs / 2) return Math.min(MAX_BATCH, limit * 2);
  return limit;
}
