/**
 * The report of a checking command: the conformance runner's duties, the importer kit's and the
 * sink kit's cases. Each check passes, fails or is not checked (with why), with the evidence
 * it saw; the run is a table for people and JSON for CI, the same layout in every command.
 */

export type CheckResult = 'pass' | 'fail' | 'not checked';

export interface CheckReport {
  /** Stable identifier, e.g. `import.lost-reply`: tests and CI key on it. */
  id: string;
  title: string;
  /** Where the rule the check holds to is written, relative to the repository root. */
  doc: string;
  result: CheckResult;
  /** What was made, sent and seen; why not checked. */
  evidence: string[];
}

/** A run's timing and tally, the part of every report the commands share. */
export interface RunSummary {
  startedAt: string;
  durationMs: number;
  /** True when no checked case failed. */
  passed: boolean;
  counts: { pass: number; fail: number; notChecked: number };
}

/** The tally of `reports`, for a run that started at `startedAt` (ms since the epoch). */
export function summarizeRun(reports: readonly CheckReport[], startedAt: number): RunSummary {
  const count = (result: CheckResult) => reports.filter((r) => r.result === result).length;
  const counts = { pass: count('pass'), fail: count('fail'), notChecked: count('not checked') };
  return {
    startedAt: new Date(startedAt).toISOString(),
    durationMs: Date.now() - startedAt,
    passed: counts.fail === 0,
    counts,
  };
}

const MARK: Record<CheckResult, string> = { pass: 'PASS', fail: 'FAIL', 'not checked': 'n/a ' };

/** One check: its result, id and title, its evidence indented below (`width`: id column). */
export function formatCheck(report: CheckReport, width = report.id.length): string {
  return [
    `${MARK[report.result]}  ${report.id.padEnd(width)}  ${report.title}`,
    ...report.evidence.map((line) => `${' '.repeat(width + 8)}${line}`),
  ].join('\n');
}

export interface RunTable {
  /** The lines above the simulator's: what was checked. */
  heading: readonly string[];
  /** Where the checks ran, to start the line of the time: `simulator <url>`. */
  where: string;
  summary: RunSummary;
  checks: readonly CheckReport[];
  /** What the tally counts: `Duties`, `Cases`. */
  noun: string;
  /** The last words: when every checked one holds, and when one fails. */
  verdict: { passed: string; failed: string };
}

/** The whole run: heading, where and when, a row per check, the tally and the verdict. */
export function formatRun(table: RunTable): string {
  const { summary } = table;
  const width = Math.max(...table.checks.map((c) => c.id.length));
  const { pass, fail, notChecked } = summary.counts;
  return [
    ...table.heading,
    `${table.where}, ${summary.startedAt}, ${(summary.durationMs / 1000).toFixed(1)} s`,
    '',
    ...table.checks.map((c) => formatCheck(c, width)),
    '',
    `${table.noun}: ${pass} pass, ${fail} fail, ${notChecked} not checked. ${
      summary.passed ? table.verdict.passed : table.verdict.failed
    }`,
  ].join('\n');
}
