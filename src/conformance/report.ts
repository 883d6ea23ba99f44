/** The runner's report: a table for people, JSON for CI (the checking commands' layout). */
import { formatRun, type RunSummary, summarizeRun } from '../check-runner/report.ts';
import type { DutyReport } from './duty.ts';

export interface ConformanceReport extends RunSummary {
  consumer: string;
  simulator: string;
  duties: DutyReport[];
}

export function summarize(
  duties: DutyReport[],
  context: { consumer: string; simulator: string; startedAt: number },
): ConformanceReport {
  return {
    consumer: context.consumer,
    simulator: context.simulator,
    ...summarizeRun(duties, context.startedAt),
    duties,
  };
}

/** One line per duty with its result, its evidence indented below. */
export function formatTable(report: ConformanceReport): string {
  return formatRun({
    heading: [`Conformance of ${report.consumer}`],
    where: `simulator ${report.simulator}`,
    summary: report,
    checks: report.duties,
    noun: 'Duties',
    verdict: { passed: 'Every checked duty holds.', failed: 'NOT conformant.' },
  });
}
