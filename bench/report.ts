/**
 * The results of `npm run bench`: a table on stdout with each target of issue 10 checked, and
 * the JSON under bench/results/ (<timestamp>.json and latest.json).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import type { DrainResult } from './drain.ts';
import { type HistoryResult, median } from './history.ts';
import type { IngressOptions, IngressResult } from './ingress.ts';
import type { MicroResult } from './micro.ts';
import type { ReconcileResult } from './reconcile.ts';

export interface BenchReport {
  startedAt: string;
  node: string;
  platform: string;
  cpuModel: string;
  cores: number;
  memoryBytes: number;
  parameters: IngressOptions & {
    quick: boolean;
    invoices: number;
    reconcileMessages: number;
    historyEvents: number;
    historyRounds: number;
  };
  ingress: IngressResult[];
  drain?: DrainResult;
  /** The drain on PostgreSQL, two consumer processes sharing it. */
  postgresDrain?: DrainResult;
  reconcile?: ReconcileResult;
  /** Issue 18: the same probes without and with history, and a retention run. */
  history?: HistoryResult[];
  micro: MicroResult[];
  targets: Target[];
  /** No acknowledged event lost, nothing answered non-2xx, no request failed, no run failed. */
  passed: boolean;
}

export interface Target {
  name: string;
  met: boolean;
  measured: string;
}

const MIB = 1024 * 1024;
const RSS_TARGET = 150 * MIB;

export function createReport(
  startedAt: Date,
  parameters: BenchReport['parameters'],
  results: Pick<
    BenchReport,
    'ingress' | 'drain' | 'postgresDrain' | 'reconcile' | 'micro' | 'history'
  >,
): BenchReport {
  const { ingress, drain, reconcile } = results;
  const byName = (prefix: string) => ingress.find((s) => s.name.startsWith(prefix));
  const c = byName('c');
  const d = byName('d');
  const targets: Target[] = [];
  if (c !== undefined) {
    targets.push(
      {
        name: '(c) ingress >= 0.8 of (b)',
        met: c.ratioToExpress >= 0.8,
        measured: c.ratioToExpress.toFixed(2),
      },
      { name: '(c) p99 < 20 ms', met: c.latencyP99Ms < 20, measured: `${c.latencyP99Ms} ms` },
      { name: '(c) p99.9 < 50 ms', met: c.latencyP999Ms < 50, measured: `${c.latencyP999Ms} ms` },
    );
  }
  if (d !== undefined) {
    targets.push({
      name: '(d) with worker >= 0.5 of (b)',
      met: d.ratioToExpress >= 0.5,
      measured: d.ratioToExpress.toFixed(2),
    });
  }
  if (drain !== undefined) {
    targets.push({
      name: 'drain >= 1,000 invoices/s',
      met: drain.invoicesPerSecond >= 1000,
      measured: `${integer(drain.invoicesPerSecond)}/s`,
    });
  }
  if (reconcile !== undefined) {
    const perTenThousand = (reconcile.seconds * 10_000) / reconcile.messages;
    targets.push({
      name: 'reconcile 10,000 pending < 30 s',
      met: perTenThousand < 30,
      measured: `${perTenThousand.toFixed(1)} s${reconcile.messages === 10_000 ? '' : ` (scaled from ${reconcile.messages})`}`,
    });
  }
  for (const h of results.history ?? []) {
    // The median of the rounds' ratios: each round's two probes ran back to back.
    const perRound = (pick: (p: HistoryResult['empty']) => number) => {
      const ratios = h.rounds.map((r) => pick(r.history) / pick(r.empty));
      const mid = median(ratios);
      return {
        met: mid >= 0.9,
        measured: `${mid.toFixed(2)} of empty${ratios.length > 1 ? ` (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})` : ''}`,
      };
    };
    targets.push(
      {
        name: `history ${h.store}: ingress within 10% of empty`,
        ...perRound((p) => p.ingressPerSecond),
      },
      {
        name: `history ${h.store}: drain within 10% of empty`,
        ...perRound((p) => p.drainPerSecond),
      },
      {
        name: `history ${h.store}: /metrics and admin listings < 20 ms`,
        met:
          Math.max(h.history.metrics.maxMs, h.history.adminDone.maxMs, h.history.adminDeep.maxMs) <
          20,
        measured: `max ${Math.max(h.history.metrics.maxMs, h.history.adminDone.maxMs, h.history.adminDeep.maxMs)} ms`,
      },
    );
  }
  const peaks = [
    ...ingress.filter((s) => s.name >= 'c').map((s) => s.serverPeakRssBytes),
    ...(drain === undefined ? [] : [drain.consumerPeakRssBytes]),
    ...(results.postgresDrain === undefined ? [] : [results.postgresDrain.consumerPeakRssBytes]),
    ...(reconcile === undefined ? [] : [reconcile.peakRssBytes]),
  ];
  // Only when a scenario measured it (`--only history` runs none of them).
  if (peaks.length > 0) {
    targets.push({
      name: 'consumer peak RSS < 150 MB in every scenario',
      met: peaks.every((p) => p < RSS_TARGET),
      measured: `max ${Math.round(Math.max(...peaks) / MIB)} MiB`,
    });
  }

  const passed =
    ingress.every(
      (s) => s.non2xx === 0 && s.warmupNon2xx === 0 && s.errors === 0 && (s.inbox?.ok ?? true),
    ) &&
    (reconcile === undefined ||
      (reconcile.exitCode === 0 && reconcile.delivered === reconcile.messages)) &&
    (results.history ?? []).every((h) => (h.retention?.non204 ?? 0) === 0);
  return {
    startedAt: startedAt.toISOString(),
    node: process.version,
    platform: `${platform()} ${release()}`,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    cores: availableParallelism(),
    memoryBytes: totalmem(),
    parameters,
    ...results,
    targets,
    passed,
  };
}

export function formatReport(report: BenchReport): string {
  const { parameters: p } = report;
  const lines = [
    `Node ${report.node}, ${report.cpuModel}, ${report.cores} cores, ` +
      `${Math.round(report.memoryBytes / 2 ** 30)} GiB; ${p.connections} connections, ` +
      `${p.durationSeconds} s per scenario after ${p.warmupSeconds} s warm-up`,
    '',
    table(
      [
        'scenario',
        'req/s',
        'p50',
        'p99',
        'p99.9 ms',
        'ratio to b',
        'server CPU',
        'peak RSS',
        'client CPU',
        'non-2xx',
        'errors',
      ],
      report.ingress.map((s) => [
        s.name,
        integer(s.requestsPerSecond),
        String(s.latencyP50Ms),
        String(s.latencyP99Ms),
        String(s.latencyP999Ms),
        s.ratioToExpress.toFixed(2),
        percent(s.serverCpu),
        `${Math.round(s.serverPeakRssBytes / MIB)} MiB`,
        percent(s.clientCpu),
        String(s.non2xx + s.warmupNon2xx),
        String(s.errors),
      ]),
    ),
  ];
  for (const s of report.ingress) {
    if (s.builtDuringRun > 0)
      lines.push(`${s.name}: ${s.builtDuringRun} requests built during the run (pool ran out)`);
    if (s.inbox !== undefined) {
      const i = s.inbox;
      lines.push(
        `${s.name} inbox: ${i.rows} rows, ${i.acknowledged} acknowledged (warm-up included), ` +
          `${i.missing} missing, ${i.unanswered} committed but unanswered at stop -> ${i.ok ? 'OK' : 'FAIL'}`,
      );
    }
    if (s.drainAfterSeconds !== undefined) {
      lines.push(
        `${s.name}: backlog handled ${s.drainAfterSeconds.toFixed(1)} s after the load stopped`,
      );
    }
  }
  for (const d of [report.drain, report.postgresDrain]) {
    if (d === undefined) continue;
    lines.push(
      '',
      `backlog drain (${d.store}, ${d.consumers} consumer${d.consumers === 1 ? '' : 's'}): ` +
        `${d.invoices} invoices (${d.events} events) imported and acknowledged in ` +
        `${d.seconds.toFixed(1)} s = ${integer(d.invoicesPerSecond)}/s; consumer CPU ${percent(d.consumerCpu)}, ` +
        `provider CPU ${percent(d.providerCpu)}, consumer peak RSS ${Math.round(d.consumerPeakRssBytes / MIB)} MiB`,
    );
    for (const [i, thread] of (d.profile ?? []).entries()) {
      const top = thread.parts.slice(0, 6).map((part) => `${part.part} ${percent(part.share)}`);
      lines.push(`  ${i === 0 ? 'main thread' : 'SQLite writer'}: ${top.join(', ')}`);
    }
  }
  if (report.reconcile !== undefined) {
    const r = report.reconcile;
    lines.push(
      '',
      `reconciliation: ${r.messages} pending messages in ${r.seconds.toFixed(1)} s ` +
        `(${integer(r.messagesPerSecond)}/s), exit ${r.exitCode}, ${r.delivered} delivered; ` +
        `CPU ${percent(r.reconcileCpu)}, provider ${percent(r.providerCpu)}, peak RSS ${Math.round(r.peakRssBytes / MIB)} MiB`,
      `  ${r.summary}`,
    );
  }
  for (const h of report.history ?? []) lines.push('', ...formatHistory(h));
  const rate = report.ingress.find((s) => s.name.startsWith('c'))?.requestsPerSecond ?? 0;
  lines.push(
    '',
    table(
      ['one core, tight loop', 'body B', 'ops/s', 'µs/op', `CPU at ${integer(rate)} req/s`],
      report.micro.map((m) => [
        m.name,
        String(m.bodyBytes),
        integer(m.opsPerSecond),
        m.microsPerOp.toFixed(1),
        percent((rate * m.microsPerOp) / 1e6),
      ]),
    ),
    '',
    table(
      ['target (issue 10)', 'measured', 'met'],
      report.targets.map((t) => [t.name, t.measured, t.met ? 'yes' : 'no']),
    ),
    '',
    report.passed ? 'PASS' : 'FAIL: see non-2xx, errors, inbox or reconciliation above',
  );
  return lines.join('\n');
}

function formatHistory(h: HistoryResult): string[] {
  const ms = (l: { p50Ms: number; maxMs: number }) => `${l.p50Ms} / ${l.maxMs}`;
  const row = (label: string, p: HistoryResult['empty']) => [
    label,
    `${(p.sizeBytes / MIB).toFixed(0)} MiB`,
    integer(p.ingressPerSecond),
    String(p.ingressP99Ms),
    p.drainPerSecond.toFixed(0),
    ms(p.metrics),
    ms(p.adminDone),
    ms(p.adminDeep),
    ms(p.claim),
    ms(p.staleScan),
    integer(p.inserts.randomIdsPerSecond),
    integer(p.inserts.orderedIdsPerSecond),
  ];
  const r = h.retention;
  const inserts = (p: HistoryResult['empty']) => p.inserts.randomIdsPerSecond;
  const ordered = (p: HistoryResult['empty']) => p.inserts.orderedIdsPerSecond;
  return [
    `history (${h.store}): ${integer(h.events)} events over 365 days, written in ${h.fillSeconds.toFixed(0)} s; ` +
      `${h.rounds.length} round${h.rounds.length === 1 ? '' : 's'}, rates and p50s their median, latencies p50 / max in ms`,
    table(
      [
        'store',
        'size',
        'ingress/s',
        'p99',
        'drain/s',
        '/metrics',
        'admin done',
        'page 20',
        'claim',
        'stale scan',
        'inserts/s',
        'ordered ids',
      ],
      [row('empty', h.empty), row('history', h.history)],
    ),
    `store inserts with history: ${ratio(inserts(h.history), inserts(h.empty))} with the service's random eventIds, ` +
      `${ratio(ordered(h.history), ordered(h.empty))} with time-ordered ones`,
    `first request after the consumer's start (not in the samples): /metrics ${h.empty.firstRequest.metricsMs} ms empty, ` +
      `${h.history.firstRequest.metricsMs} ms with history; admin ${h.empty.firstRequest.adminMs} / ${h.history.firstRequest.adminMs} ms`,
    ...(r === undefined ? ['retention run: skipped (--no-retention)'] : formatRetention(r)),
  ];
}

function formatRetention(r: NonNullable<HistoryResult['retention']>): string[] {
  return [
    `retention run (default policy): ${r.seconds.toFixed(0)} s, removed ${Object.entries(r.removed)
      .map(([step, n]) => `${step} ${integer(n)}`)
      .join(', ')}; ${integer(r.webhooks)} webhooks meanwhile: p50 ${r.webhookP50Ms} ms, ` +
      `p99 ${r.webhookP99Ms} ms, max ${r.webhookMaxMs} ms, ${r.non204} not 204`,
    `  ${integer(r.batches.count)} batches, the longest ${r.batches.longestMs} ms (${r.batches.longestStep}); ` +
      `${integer(r.batches.over10Ms)} over 10 ms, ${integer(r.batches.over20Ms)} over 20 ms`,
    `  size ${(r.sizeBeforeBytes / MIB).toFixed(0)} MiB -> ${(r.sizeAfterBytes / MIB).toFixed(0)} MiB; ` +
      `at 25,000 events a day, a year under the default policy: ${(r.boundAt25kPerDayBytes / MIB).toFixed(0)} MiB`,
  ];
}

function ratio(a: number, b: number): string {
  return b === 0 ? 'n/a' : `${(a / b).toFixed(2)} of empty`;
}

/** Writes <dir>/<timestamp>.json and <dir>/latest.json; returns the first. */
export async function writeReport(report: BenchReport, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  // Colons are legal on Linux but not on every file system a fork may check results into.
  const file = join(dir, `${report.startedAt.replaceAll(':', '-')}.json`);
  await writeFile(file, json);
  await writeFile(join(dir, 'latest.json'), json);
  return file;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0)))
      .join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function integer(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}
