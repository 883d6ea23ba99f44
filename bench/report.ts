/** The results as a table on stdout and as JSON under bench-results/. */
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, platform, release } from 'node:os';
import { join } from 'node:path';
import type { MicroResult } from './micro.ts';
import type { ScenarioOptions, ScenarioResult } from './scenarios.ts';

export interface BenchReport {
  startedAt: string;
  node: string;
  platform: string;
  cpuModel: string;
  cores: number;
  parameters: ScenarioOptions & { microSeconds: number; quick: boolean };
  scenarios: ScenarioResult[];
  micro: MicroResult[];
  /** True when no 2xx was lost, nothing was answered non-2xx and no request failed. */
  passed: boolean;
}

export function createReport(
  startedAt: Date,
  parameters: BenchReport['parameters'],
  scenarios: ScenarioResult[],
  micro: MicroResult[],
): BenchReport {
  const passed = scenarios.every(
    (s) => s.non2xx === 0 && s.warmupNon2xx === 0 && s.errors === 0 && (s.inbox?.ok ?? true),
  );
  return {
    startedAt: startedAt.toISOString(),
    node: process.version,
    platform: `${platform()} ${release()}`,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    cores: availableParallelism(),
    parameters,
    scenarios,
    micro,
    passed,
  };
}

export function formatReport(report: BenchReport): string {
  const { parameters: p } = report;
  const ingress = report.scenarios.find((s) => s.name === 'ingress');
  const lines = [
    `Node ${report.node}, ${report.cpuModel}, ${report.cores} cores; ${p.connections} connections, ` +
      `${p.durationSeconds} s per scenario after ${p.warmupSeconds} s warm-up`,
    '',
    table(
      [
        'scenario',
        'req/s',
        'p50 ms',
        'p99 ms',
        'non-2xx',
        'errors',
        'ratio',
        'client CPU',
        'server CPU',
      ],
      report.scenarios.map((s) => [
        s.name,
        integer(s.requestsPerSecond),
        String(s.latencyP50Ms),
        String(s.latencyP99Ms),
        String(s.non2xx + s.warmupNon2xx),
        String(s.errors),
        s.ratioToBaseline.toFixed(2),
        percent(s.clientCpu),
        percent(s.serverCpu),
      ]),
    ),
  ];
  for (const s of report.scenarios) {
    if (s.inbox === undefined) continue;
    const i = s.inbox;
    lines.push(
      `${s.name} inbox: ${i.rows} rows, ${i.acknowledged} events acknowledged (warm-up included), ` +
        `${i.missing} missing, ${i.unanswered} committed but unanswered at stop -> ${i.ok ? 'OK' : 'FAIL'}`,
    );
  }
  const rate = ingress?.requestsPerSecond ?? 0;
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
    report.passed ? 'PASS' : 'FAIL: see non-2xx, errors or inbox above',
  );
  return lines.join('\n');
}

/** Writes bench-results/<timestamp>.json and bench-results/latest.json; returns the first. */
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
