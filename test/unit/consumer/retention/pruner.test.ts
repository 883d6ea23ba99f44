/**
 * The pruner against a scripted store: how each step sizes its batches from the time the store
 * reports for them (PruneBatch.ms), the order of the steps, and what a run reports. The store's
 * own stop at the budget is tested on both stores in test/integration/store/retention.test.ts.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { DAY_MS, DEFAULT_RETENTION } from '../../../../src/consumer/retention/policy.ts';
import {
  createPruner,
  nextSize,
  type PruneStep,
  perStep,
} from '../../../../src/consumer/retention/pruner.ts';
import type {
  BatchBound,
  PruneBatch,
  RetentionStore,
} from '../../../../src/consumer/store/retention.ts';

const NOW = 1_800_000_000_000;
const logger = pino({ level: 'silent' });

/**
 * A store whose every step has `rows` rows to remove and takes `msPerRow` for each (a batch
 * stops at its budget as the real ones do); records the calls.
 */
function scriptedStore(
  rows: Partial<Record<PruneStep, number>>,
  msPerRow: number | Partial<Record<PruneStep, number>> = 0.01,
) {
  const cost = (step: PruneStep) =>
    typeof msPerRow === 'number' ? msPerRow : (msPerRow[step] ?? 0.01);
  const calls: { step: PruneStep; bound: BatchBound; args: unknown[] }[] = [];
  const left = { ...perStep(0), ...rows };
  const batch = (step: PruneStep, bound: BatchBound, args: unknown[] = []): PruneBatch => {
    calls.push({ step, bound, args });
    const byBudget = Math.max(1, Math.ceil(bound.budgetMs / cost(step)));
    const count = Math.min(left[step], bound.limit, byBudget);
    left[step] -= count;
    return { count, more: left[step] > 0, ms: count * cost(step), workMs: count * cost(step) };
  };
  const retention: RetentionStore = {
    pruneEvents: async (before, bound, options) => batch('events', bound, [before, options]),
    pruneDeadEvents: async (cutoffs, bound, options) => batch('dead', bound, [cutoffs, options]),
    dropBodies: async (before, bound) => batch('bodies', bound, [before]),
    forgetEventIds: async (before, bound) => batch('eventIds', bound, [before]),
    pruneMessages: async (before, bound) => ({
      ...batch('messages', bound, [before]),
      forgotten: [],
    }),
    pruneNotices: async (before, bound) => batch('notices', bound, [before]),
    pruneSubmissions: async (before, bound) => batch('submissions', bound, [before]),
    reclaim: async (bound) => batch('pages', bound),
  };
  return { retention, calls };
}

describe('nextSize', () => {
  const batch = (ms: number, more = true): PruneBatch => ({ count: 64, more, ms, workMs: ms });

  it('sizes by the work before the commit, not by the commit', () => {
    // A slow disk: every commit takes 12 ms, more than the budget, for one row or a thousand.
    const slowCommit = (workMs: number): PruneBatch => ({
      count: 64,
      more: true,
      ms: workMs + 12,
      workMs,
    });
    expect(nextSize(64, slowCommit(3), 10)).toBe(128);
    expect(nextSize(64, slowCommit(7), 10)).toBe(64);
    expect(nextSize(64, slowCommit(10), 10)).toBe(32);
  });

  it('halves after a batch that used its budget, doubles after one at its limit under half of it', () => {
    expect(nextSize(64, batch(25), 10)).toBe(32);
    expect(nextSize(64, batch(10), 10)).toBe(32);
    expect(nextSize(64, batch(4), 10)).toBe(128);
    expect(nextSize(64, batch(7), 10)).toBe(64);
    // A batch that ran out of rows says nothing about its size.
    expect(nextSize(64, batch(1, false), 10)).toBe(64);
  });

  it('stays between one row and 4,096', () => {
    expect(nextSize(1, batch(500), 10)).toBe(1);
    expect(nextSize(4096, batch(0.1), 10)).toBe(4096);
  });
});

/** A pruner over `store` with the default policy and the fixed clock. */
const prunerOver = (store: { retention: RetentionStore }, batchBudgetMs?: number) =>
  createPruner({
    store,
    policy: DEFAULT_RETENTION,
    logger,
    now: () => NOW,
    ...(batchBudgetMs === undefined ? {} : { batchBudgetMs }),
  });

describe('createPruner', () => {
  it('runs the steps in order with the policy cut-offs, dead events after finished ones', async () => {
    const { retention, calls } = scriptedStore({
      events: 1,
      dead: 1,
      bodies: 1,
      notices: 1,
      pages: 1,
    });
    const pruner = prunerOver({ retention });
    const report = await pruner.run();
    expect(calls.map((call) => call.step)).toEqual([
      'events',
      'dead',
      'bodies',
      'eventIds',
      'messages',
      'notices',
      'submissions',
      'pages',
    ]);
    const remember = { rememberSince: NOW - DEFAULT_RETENTION.dedupeDays * DAY_MS };
    expect(calls[1]?.args).toEqual([
      {
        settled: NOW - DEFAULT_RETENTION.eventDays * DAY_MS,
        any: NOW - DEFAULT_RETENTION.deadDays * DAY_MS,
      },
      remember,
    ]);
    expect(report.counts).toEqual({
      events: 1,
      dead: 1,
      bodies: 1,
      eventIds: 0,
      messages: 0,
      notices: 1,
      submissions: 0,
      pages: 1,
    });
    // Delivered notices are kept as long as the events.
    expect(calls.find((call) => call.step === 'notices')?.args).toEqual([
      NOW - DEFAULT_RETENTION.eventDays * DAY_MS,
    ]);
    // Settled submissions, as long as final messages.
    expect(calls.find((call) => call.step === 'submissions')?.args).toEqual([
      NOW - DEFAULT_RETENTION.messageDays * DAY_MS,
    ]);
  });

  it('sizes each step to the budget from the time the store reports, each on its own', async () => {
    // Events cost 0.1 ms a row: 100 rows fill a 10 ms budget. Dedupe records are cheap.
    const { retention, calls } = scriptedStore(
      { events: 5000, eventIds: 5000 },
      { events: 0.1, eventIds: 0.01 },
    );
    const pruner = prunerOver({ retention });
    const report = await pruner.run();
    const limits = (step: PruneStep) =>
      calls.filter((call) => call.step === step).map((call) => call.bound.limit);
    // 64 rows take 6.4 ms, more than half the budget: kept.
    expect(new Set(limits('events'))).toEqual(new Set([64]));
    // 64 take 0.64 ms: doubled until a batch takes half the budget (512 rows, 5.12 ms).
    expect(limits('eventIds').slice(0, 5)).toEqual([64, 128, 256, 512, 512]);
    expect(calls.every((call) => call.bound.budgetMs === 10)).toBe(true);
    expect(report.longestBatchMs).toBeCloseTo(6.4);
    expect(report.longestBatchStep).toBe('events');
    expect(report.counts.events).toBe(5000);
  });

  it('doubles a step whose batches end early, and halves one whose batches run long', async () => {
    const fast = scriptedStore({ events: 100_000 }, 0.001);
    await prunerOver(fast).run();
    const fastLimits = fast.calls.filter((c) => c.step === 'events').map((c) => c.bound.limit);
    expect(fastLimits.slice(0, 8)).toEqual([64, 128, 256, 512, 1024, 2048, 4096, 4096]);

    // 1 ms a row: a batch stops at its budget after 10 rows, until it is small enough to end
    // before.
    const slow = scriptedStore({ events: 1000 }, 1);
    await prunerOver(slow).run();
    const slowLimits = slow.calls.filter((c) => c.step === 'events').map((c) => c.bound.limit);
    expect(slowLimits.slice(0, 4)).toEqual([64, 32, 16, 8]);
    // Then it settles where a batch fits the budget.
    expect(Math.max(...slowLimits.slice(4))).toBeLessThanOrEqual(10);
  });

  it('keeps each step its size from one run to the next, and passes the budget it is given', async () => {
    const { retention, calls } = scriptedStore({ events: 10_000 }, 0.001);
    const pruner = prunerOver({ retention }, 20);
    await pruner.run();
    const lastSize = calls.filter((c) => c.step === 'events').at(-1)?.bound.limit;
    calls.length = 0;
    await pruner.run();
    expect(calls.find((c) => c.step === 'events')?.bound).toEqual({
      limit: lastSize,
      budgetMs: 20,
    });
  });
});
