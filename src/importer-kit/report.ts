/** The kit's report: a table for people (the checking commands' layout), JSON for CI. */
import {
  type CheckReport,
  type CheckResult,
  formatCheck,
  formatRun,
  type RunSummary,
  summarizeRun,
} from '../check-runner/report.ts';

export type CaseResult = CheckResult;

/** A case as the report gives it; its evidence: what the kit made, what import() answered. */
export type CaseReport = CheckReport;

export interface KitReport extends RunSummary {
  importer: {
    /** As IMPORTER_MODULE or the command line named it. */
    spec: string;
    /** The definition's name. */
    name: string;
    /** The module's file. */
    file: string;
    /** Where imports go, from the definition's describe(). */
    describe: string;
  };
  /** The simulator the kit started. */
  simulator: string;
  /** The target controller: its module as `--target` named it, `given` in a test, or null. */
  target: string | null;
  cases: CaseReport[];
}

export function summarize(
  cases: CaseReport[],
  context: {
    importer: KitReport['importer'];
    simulator: string;
    target: string | null;
    startedAt: number;
  },
): KitReport {
  return {
    importer: context.importer,
    simulator: context.simulator,
    target: context.target,
    ...summarizeRun(cases, context.startedAt),
    cases,
  };
}

/** One case: its result, id and title, its evidence indented below (`width`: id column). */
export const formatCase = formatCheck;

export function formatTable(report: KitReport): string {
  const { importer } = report;
  return formatRun({
    heading: [`Importer contract of ${importer.name} (${importer.file})`, importer.describe],
    where: `simulator ${report.simulator}, target ${report.target ?? 'none'}`,
    summary: report,
    checks: report.cases,
    noun: 'Cases',
    verdict: {
      passed: 'Every checked case holds.',
      failed: 'The importer breaks its contract (src/consumer/importer/README.md).',
    },
  });
}
