/**
 * The results of `npm run bench`: a table on stdout with each target checked (targets.ts), and
 * the JSON under bench/results/ (<timestamp>.json and latest.json).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import type { DrainResult } from './drain.ts';
import { failedScenario, integer, percent } from './format.ts';
import type { HistoryResult } from './history.ts';
import { IMPORT_LANES } from './import-cost.ts';
import type { IngressOptions, IngressResult } from './ingress.ts';
import type { MicroResult } from './micro.ts';
import type { ReconcileResult } from './reconcile.ts';
import { allWorkDone, createTargets, type PartResults, type Target } from './targets.ts';
import { formatCpuPerRequest } from './thread-cpu.ts';
import { formatTracing, tracingFailures } from './tracing-cost.ts';
import {
  drainShortfall,
  historyShortfall,
  ingressShortfall,
  reconcileShortfall,
} from './work-done.ts';

export type { Target };

export interface BenchReport extends PartResults {
  startedAt: string;
  node: string;
  platform: string;
  cpuModel: string;
  cores: number;
  memoryBytes: number;
  parameters: IngressOptions & {
    quick: boolean;
    /** A smoke run (CI's): every scenario once at a tiny size; no target is checked. */
    smoke: boolean;
    invoices: number;
    reconcileMessages: number;
    historyEvents: number;
    historyRounds: number;
  };
  micro: MicroResult[];
  targets: Target[];
  /**
   * Every scenario did the whole work asked of it (work-done.ts): no acknowledged event lost,
   * nothing answered non-2xx, no request failed, every invoice and message delivered, every
   * notice delivered, every command exited 0, no part threw.
   */
  passed: boolean;
}

const MIB = 1024 * 1024;

export function createReport(
  startedAt: Date,
  parameters: BenchReport['parameters'],
  results: PartResults & { micro: MicroResult[] },
): BenchReport {
  const inputs = { ...results, smoke: parameters.smoke };
  return {
    startedAt: startedAt.toISOString(),
    node: process.version,
    platform: `${platform()} ${release()}`,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    cores: availableParallelism(),
    memoryBytes: totalmem(),
    parameters,
    ...results,
    targets: createTargets(inputs),
    passed: allWorkDone(inputs),
  };
}

export function formatReport(report: BenchReport): string {
  const { parameters: p } = report;
  const lines = [
    `Node ${report.node}, ${report.cpuModel}, ${report.cores} cores, ` +
      `${Math.round(report.memoryBytes / 2 ** 30)} GiB; ${p.connections} connections, ` +
      `${p.durationSeconds} s per scenario after ${p.warmupSeconds} s warm-up` +
      (p.smoke ? '; a smoke run: sizes too small for any figure to mean anything' : ''),
  ];
  // `--only drain` and the like run no load scenario.
  if (report.ingress.length > 0) {
    lines.push(
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
    );
  }
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
    if (s.cpuPerRequest !== undefined) {
      lines.push(`${s.name}: CPU per request ${formatCpuPerRequest(s.cpuPerRequest)}`);
    }
    if (s.drainAfterSeconds !== undefined) {
      lines.push(
        `${s.name}: backlog handled ${s.drainAfterSeconds.toFixed(1)} s after the load stopped`,
      );
    }
    const shortfall = ingressShortfall(s);
    if (shortfall !== undefined) lines.push(`${s.name}: ${shortfall}`);
  }
  const floor = formatFloor(report.ingress);
  if (floor !== undefined) lines.push('', floor);
  for (const d of [report.drain, report.postgresDrain]) {
    if (d !== undefined) lines.push('', ...formatDrain(d));
  }
  if (report.tracing !== undefined) {
    const c = report.ingress.find((s) => s.name.startsWith('c'));
    const tracing = formatTracing(report.tracing, { ingress: c, drain: report.drain });
    if (tracing.length > 0) lines.push('', ...tracing);
  }
  if (report.reconcile !== undefined) lines.push('', ...formatReconcile(report.reconcile));
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
  );
  for (const { part, message } of report.errors) {
    lines.push('', `${part}: did not run: ${message}`);
  }
  lines.push(
    '',
    table(
      ['target', 'issue', 'measured', 'met'],
      report.targets.map((t) => [
        t.name,
        t.issue === 0 ? '-' : String(t.issue),
        t.measured,
        t.met ? 'yes' : (t.why ?? 'no'),
      ]),
      [0, 3],
    ),
    '',
    report.passed
      ? `PASS${p.smoke ? ' (smoke run: every scenario did the work asked; no target checked)' : ''}`
      : `FAIL: ${failures(report).join('; ')}`,
  );
  return lines.join('\n');
}

/** Both clocks, the CPU per invoice of each side, and why the run does not count, if so. */
function formatDrain(d: DrainResult): string[] {
  const shortfall = drainShortfall(d);
  const journal =
    d.noticesMissingFromJournal === undefined
      ? ''
      : `, ${integer(d.notices - d.noticesMissingFromJournal)} in the journal`;
  return [
    `backlog drain (${d.store}, ${d.consumers} consumer${d.consumers === 1 ? '' : 's'}): ` +
      `${integer(d.invoices)} invoices (${integer(d.events)} events), ${integer(d.delivered)} delivered; ` +
      (d.failure === undefined
        ? `inbox empty after ${d.inboxEmptySeconds.toFixed(1)} s, last notice delivered after ` +
          `${d.seconds.toFixed(1)} s = ${integer(d.invoicesPerSecond)} invoices/s`
        : `stopped after ${d.seconds.toFixed(1)} s`),
    `  ${integer(d.notices)} status notices, ${integer(d.notices - d.noticesPending)} delivered${journal}; ` +
      `CPU per invoice: consumer ${d.consumerCpuMsPerInvoice.toFixed(2)} ms ` +
      `(${d.consumerCpuMsPerInvoiceAtInboxEmpty.toFixed(2)} ms by the inbox's end), ` +
      `provider ${d.providerCpuMsPerInvoice.toFixed(2)} ms, ` +
      `ratio ${(d.consumerCpuMsPerInvoice / d.providerCpuMsPerInvoice).toFixed(1)}x`,
    `  consumer CPU ${percent(d.consumerCpu)}, provider CPU ${percent(d.providerCpu)}, ` +
      `consumer peak RSS ${Math.round(d.consumerPeakRssBytes / MIB)} MiB`,
    ...(d.fileImport === undefined
      ? []
      : [
          `  the default file importer alone (import-cost.ts: ${integer(d.fileImport.imports)} of ` +
            `these invoices imported again in the runner, ${IMPORT_LANES} at a time): ` +
            `${d.fileImport.cpuMsPerImport.toFixed(2)} ms of CPU an invoice, ` +
            `${(d.fileImport.cpuMsPerImport / d.providerCpuMsPerInvoice).toFixed(1)}x the provider's`,
        ]),
    ...(d.profile ?? []).map((thread, i) => {
      const top = thread.parts.slice(0, 6).map((part) => `${part.part} ${percent(part.share)}`);
      return `  ${i === 0 ? 'main thread' : 'SQLite writer'}: ${top.join(', ')}`;
    }),
    ...(shortfall === undefined ? [] : [`  ${shortfall}`]),
  ];
}

function formatReconcile(r: ReconcileResult): string[] {
  const shortfall = reconcileShortfall(r);
  return [
    `reconciliation: ${integer(r.messages)} pending messages in ${r.seconds.toFixed(1)} s ` +
      `(${integer(r.messagesPerSecond)}/s), exit ${r.exitCode}, ${integer(r.delivered)} delivered; ` +
      `CPU ${percent(r.reconcileCpu)}, provider ${percent(r.providerCpu)}, peak RSS ${Math.round(r.peakRssBytes / MIB)} MiB`,
    `  CPU per message: reconcile ${r.reconcileCpuMsPerMessage.toFixed(2)} ms, provider ${r.providerCpuMsPerMessage.toFixed(2)} ms`,
    `  ${r.summary}`,
    ...(shortfall === undefined ? [] : [`  ${shortfall}`]),
  ];
}

/** The scenarios that did not do their work, for the last line. */
function failures(report: BenchReport): string[] {
  return [
    ...report.ingress.flatMap((s) => failedScenario(s.name, ingressShortfall(s))),
    ...[report.drain, report.postgresDrain].flatMap((d) =>
      d === undefined ? [] : failedScenario(`drain ${d.store}`, drainShortfall(d)),
    ),
    ...(report.reconcile === undefined
      ? []
      : failedScenario('reconcile', reconcileShortfall(report.reconcile))),
    ...(report.history ?? []).flatMap((h) =>
      failedScenario(`history ${h.store}`, historyShortfall(h)),
    ),
    ...tracingFailures(report.tracing),
    ...report.errors.map(({ part }) => `${part} did not run`),
  ];
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

/** Numbers right-aligned; the columns in `left` (names, reasons) left-aligned. */
function table(header: string[], rows: string[][], left: number[] = [0]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) =>
        left.includes(c) ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/**
 * (c) against (g), the floor (floor-server.ts): how far the consumer's own request code keeps
 * it from the rate a durable insert into its inbox allows, and where that rate stands to (b).
 * A ratio to (b) above (g)'s cannot come from the request's code alone.
 */
function formatFloor(ingress: IngressResult[]): string | undefined {
  const c = ingress.find((s) => s.name === 'c ingress');
  const g = ingress.find((s) => s.name === 'g floor');
  if (c === undefined || g === undefined) return undefined;
  return (
    `(c) ingress runs at ${(c.requestsPerSecond / g.requestsPerSecond).toFixed(2)} of (g) the ` +
    `floor, which itself reaches ${g.ratioToExpress.toFixed(2)} of (b)`
  );
}
