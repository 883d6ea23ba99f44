/** The runner's report: a table for people, JSON for CI. */
import type { DutyReport } from './duty.ts';

export interface ConformanceReport {
  consumer: string;
  simulator: string;
  startedAt: string;
  durationMs: number;
  /** True when no checked duty failed. */
  passed: boolean;
  counts: { pass: number; fail: number; notChecked: number };
  duties: DutyReport[];
}

export function summarize(
  duties: DutyReport[],
  context: { consumer: string; simulator: string; startedAt: number },
): ConformanceReport {
  const count = (result: DutyReport['result']) => duties.filter((d) => d.result === result).length;
  const counts = { pass: count('pass'), fail: count('fail'), notChecked: count('not checked') };
  return {
    consumer: context.consumer,
    simulator: context.simulator,
    startedAt: new Date(context.startedAt).toISOString(),
    durationMs: Date.now() - context.startedAt,
    passed: counts.fail === 0,
    counts,
    duties,
  };
}

const MARK: Record<DutyReport['result'], string> = {
  pass: 'PASS',
  fail: 'FAIL',
  'not checked': 'n/a ',
};

/** One line per duty with its result, its evidence indented below. */
export function formatTable(report: ConformanceReport): string {
  const width = Math.max(...report.duties.map((d) => d.id.length));
  const lines = [
    `Conformance of ${report.consumer}`,
    `simulator ${report.simulator}, ${report.startedAt}, ${(report.durationMs / 1000).toFixed(1)} s`,
    '',
  ];
  for (const duty of report.duties) {
    lines.push(`${MARK[duty.result]}  ${duty.id.padEnd(width)}  ${duty.title}`);
    for (const line of duty.evidence) lines.push(`${' '.repeat(width + 8)}${line}`);
  }
  const { pass, fail, notChecked } = report.counts;
  lines.push(
    '',
    `Duties: ${pass} pass, ${fail} fail, ${notChecked} not checked. ${report.passed ? 'Every checked duty holds.' : 'NOT conformant.'}`,
  );
  return lines.join('\n');
}
