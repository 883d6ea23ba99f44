/**
 * The targets `npm run bench` checks, each from the issue that set it: 10 (the first figures),
 * 18 (a year of history) and 39 (the drain to the last notice, the cost per request). A target
 * is met only by a scenario that did the whole work asked (work-done.ts), in a full run: a
 * failed or short run says why instead, a figure scaled from a smaller run says so, and a smoke
 * run (`--smoke`, CI's) checks that every scenario runs, not how fast.
 */

import type { DrainResult } from './drain.ts';
import { integer } from './format.ts';
import { type HistoryResult, median } from './history.ts';
import type { IngressResult } from './ingress.ts';
import type { ReconcileResult } from './reconcile.ts';
import { type TracingResult, tracingFailures } from './tracing-cost.ts';
import {
  drainShortfall,
  historyShortfall,
  ingressShortfall,
  reconcileShortfall,
} from './work-done.ts';

export interface Target {
  name: string;
  /** The issue that set it. */
  issue: number;
  measured: string;
  met: boolean;
  /** Why it is not met when the figure alone does not say: a failed, scaled or smoke run. */
  why?: string;
}

/** What the parts of a run gave (run.ts), as the report keeps them and the targets read them. */
export interface PartResults {
  ingress: IngressResult[];
  drain?: DrainResult;
  /** The drain on PostgreSQL, two consumer processes sharing it. */
  postgresDrain?: DrainResult;
  reconcile?: ReconcileResult;
  /** Issue 18: the same probes without and with history, and a retention run. */
  history?: HistoryResult[];
  /**
   * Issue 40: (c) and the SQLite drain again with tracing on: no target, but their work must be
   * done too.
   */
  tracing?: TracingResult;
  /** Parts that threw instead of giving a result (a consumer that did not start, say). */
  errors: { part: string; message: string }[];
}

export interface TargetInputs extends PartResults {
  smoke: boolean;
}

const MIB = 1024 * 1024;
const RSS_TARGET = 150 * MIB;
/** The reconciliation targets are for this many pending messages. */
const RECONCILE_MESSAGES = 10_000;

export function createTargets(inputs: TargetInputs): Target[] {
  const { ingress, drain, reconcile } = inputs;
  const targets: Target[] = [];
  /**
   * `ok`: whether the figure meets the target; `shortfall`: why the run does not count
   * (work-done.ts), which wins over everything else.
   */
  const add = (
    name: string,
    issue: number,
    measured: string,
    ok: boolean,
    shortfall: string | undefined,
    scaled?: string,
  ) => {
    const why =
      shortfall ??
      (inputs.smoke
        ? 'not checked: smoke run'
        : scaled === undefined
          ? undefined
          : `no: ${scaled}`);
    targets.push({
      name,
      issue,
      measured,
      met: why === undefined && ok,
      ...(why === undefined ? {} : { why }),
    });
  };

  const byName = (prefix: string) => ingress.find((s) => s.name.startsWith(prefix));
  const express = byName('b');
  // A ratio to (b) is only as good as both runs.
  const ratioShortfall = (s: IngressResult) =>
    ingressShortfall(s) ??
    (express === undefined
      ? 'FAIL: no (b) run'
      : ingressShortfall(express)?.replace(/^FAIL: /, 'FAIL: (b) '));
  const c = byName('c');
  if (c !== undefined) {
    const ratio = c.ratioToExpress.toFixed(2);
    add('(c) ingress >= 0.8 of (b)', 10, ratio, c.ratioToExpress >= 0.8, ratioShortfall(c));
    add('(c) ingress >= 0.5 of (b)', 39, ratio, c.ratioToExpress >= 0.5, ratioShortfall(c));
    add('(c) p99 < 20 ms', 10, `${c.latencyP99Ms} ms`, c.latencyP99Ms < 20, ingressShortfall(c));
    add(
      '(c) p99.9 < 50 ms',
      10,
      `${c.latencyP999Ms} ms`,
      c.latencyP999Ms < 50,
      ingressShortfall(c),
    );
  }
  const d = byName('d');
  if (d !== undefined) {
    const ratio = d.ratioToExpress.toFixed(2);
    add('(d) with worker >= 0.5 of (b)', 10, ratio, d.ratioToExpress >= 0.5, ratioShortfall(d));
    add('(d) with worker >= 0.4 of (b)', 39, ratio, d.ratioToExpress >= 0.4, ratioShortfall(d));
  }
  if (drain !== undefined) {
    const shortfall = drainShortfall(drain);
    const rate = `${integer(drain.invoicesPerSecond)}/s`;
    add('drain >= 1,000 invoices/s', 10, rate, drain.invoicesPerSecond >= 1000, shortfall);
    add(
      'drain to the last notice >= 350 invoices/s',
      39,
      rate,
      drain.invoicesPerSecond >= 350,
      shortfall,
    );
    const times = drain.consumerCpuMsPerInvoice / drain.providerCpuMsPerInvoice;
    add(
      "drain consumer CPU per invoice <= 2.5x the provider's",
      39,
      `${drain.consumerCpuMsPerInvoice.toFixed(2)} / ${drain.providerCpuMsPerInvoice.toFixed(2)} ms = ${times.toFixed(1)}x`,
      times <= 2.5,
      shortfall,
    );
  }
  if (reconcile !== undefined) {
    const shortfall = reconcileShortfall(reconcile);
    const full = reconcile.messages === RECONCILE_MESSAGES;
    const seconds = (reconcile.seconds * RECONCILE_MESSAGES) / reconcile.messages;
    const scaled = full ? undefined : `scaled from ${integer(reconcile.messages)}`;
    const measured = `${seconds.toFixed(1)} s${full ? '' : ` (${scaled})`}`;
    add('reconcile 10,000 pending < 30 s', 10, measured, seconds < 30, shortfall, scaled);
    add('reconcile 10,000 pending < 20 s', 39, measured, seconds < 20, shortfall, scaled);
  }
  for (const h of inputs.history ?? []) {
    const shortfall = historyShortfall(h);
    // The median of the rounds' ratios: each round's two probes ran back to back.
    const perRound = (name: string, pick: (p: HistoryResult['empty']) => number) => {
      const ratios = h.rounds.map((r) => pick(r.history) / pick(r.empty));
      const mid = median(ratios);
      const rounds =
        ratios.length > 1 ? ` (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})` : '';
      add(name, 18, `${mid.toFixed(2)} of empty${rounds}`, mid >= 0.9, shortfall);
    };
    perRound(`history ${h.store}: ingress within 10% of empty`, (p) => p.ingressPerSecond);
    perRound(`history ${h.store}: drain within 10% of empty`, (p) => p.drainPerSecond);
    const slowest = Math.max(
      h.history.metrics.maxMs,
      h.history.adminDone.maxMs,
      h.history.adminDeep.maxMs,
    );
    add(
      `history ${h.store}: /metrics and admin listings < 20 ms`,
      18,
      `max ${slowest} ms`,
      slowest < 20,
      shortfall,
    );
  }
  const named = (name: string, shortfall: string | undefined) =>
    shortfall?.replace(/^FAIL: /, `FAIL: ${name}: `);
  const peaks: { rss: number; shortfall: string | undefined }[] = [
    ...ingress
      .filter((s) => s.reference !== true)
      .map((s) => ({ rss: s.serverPeakRssBytes, shortfall: named(s.name, ingressShortfall(s)) })),
    ...[drain, inputs.postgresDrain].flatMap((x) =>
      x === undefined
        ? []
        : [
            {
              rss: x.consumerPeakRssBytes,
              shortfall: named(`drain ${x.store}`, drainShortfall(x)),
            },
          ],
    ),
    ...(reconcile === undefined
      ? []
      : [
          {
            rss: reconcile.peakRssBytes,
            shortfall: named('reconcile', reconcileShortfall(reconcile)),
          },
        ]),
  ];
  // A part that threw measured no peak: "every scenario" is not known.
  const missing = inputs.errors.find((e) => e.part !== 'history');
  // Only when a scenario measured it (`--only history` runs none of them).
  if (peaks.length > 0) {
    const max = Math.max(...peaks.map((p) => p.rss));
    add(
      'consumer peak RSS < 150 MiB in every scenario',
      39,
      `max ${Math.round(max / MIB)} MiB`,
      max < RSS_TARGET,
      peaks.find((p) => p.shortfall !== undefined)?.shortfall ??
        (missing === undefined ? undefined : `FAIL: ${missing.part} did not run`),
    );
  }
  for (const { part, message } of inputs.errors) {
    targets.push({
      name: `${part}: did not run`,
      issue: 0,
      measured: '-',
      met: false,
      why: `FAIL: ${oneLine(message)}`,
    });
  }
  return targets;
}

/** Whether every scenario did the whole work asked of it and none threw. */
export function allWorkDone(inputs: TargetInputs): boolean {
  return (
    inputs.errors.length === 0 &&
    inputs.ingress.every((s) => ingressShortfall(s) === undefined) &&
    [inputs.drain, inputs.postgresDrain].every(
      (d) => d === undefined || drainShortfall(d) === undefined,
    ) &&
    (inputs.reconcile === undefined || reconcileShortfall(inputs.reconcile) === undefined) &&
    (inputs.history ?? []).every((h) => historyShortfall(h) === undefined) &&
    tracingFailures(inputs.tracing).length === 0
  );
}

/** An error's message on one table row; the report prints it whole above the table. */
function oneLine(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
