/** The kit's report: a table for people (the conformance runner's layout), JSON for CI. */

export type CaseResult = 'pass' | 'fail' | 'not checked';

export interface CaseReport {
  /** Stable identifier, e.g. `import.lost-reply`: tests and CI key on it. */
  id: string;
  title: string;
  /** Where the rule the case checks is written, relative to the repository root. */
  doc: string;
  result: CaseResult;
  /** What the kit made, what import() answered, what the target holds; why not checked. */
  evidence: string[];
}

export interface KitReport {
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
  startedAt: string;
  durationMs: number;
  /** True when no checked case failed. */
  passed: boolean;
  counts: { pass: number; fail: number; notChecked: number };
  cases: CaseReport[];
}

export function summarize(
  cases: CaseReport[],
  context: { importer: KitReport['importer']; simulator: string; startedAt: number },
): KitReport {
  const count = (result: CaseResult) => cases.filter((c) => c.result === result).length;
  const counts = { pass: count('pass'), fail: count('fail'), notChecked: count('not checked') };
  return {
    importer: context.importer,
    simulator: context.simulator,
    startedAt: new Date(context.startedAt).toISOString(),
    durationMs: Date.now() - context.startedAt,
    passed: counts.fail === 0,
    counts,
    cases,
  };
}

const MARK: Record<CaseResult, string> = { pass: 'PASS', fail: 'FAIL', 'not checked': 'n/a ' };

/** One case: its result, id and title, its evidence indented below (`width`: id column). */
export function formatCase(report: CaseReport, width = report.id.length): string {
  return [
    `${MARK[report.result]}  ${report.id.padEnd(width)}  ${report.title}`,
    ...report.evidence.map((line) => `${' '.repeat(width + 8)}${line}`),
  ].join('\n');
}

export function formatTable(report: KitReport): string {
  const width = Math.max(...report.cases.map((c) => c.id.length));
  const { importer } = report;
  const lines = [
    `Importer contract of ${importer.name} (${importer.file})`,
    importer.describe,
    `simulator ${report.simulator}, ${report.startedAt}, ${(report.durationMs / 1000).toFixed(1)} s`,
    '',
    ...report.cases.map((c) => formatCase(c, width)),
  ];
  const { pass, fail, notChecked } = report.counts;
  lines.push(
    '',
    `Cases: ${pass} pass, ${fail} fail, ${notChecked} not checked. ${
      report.passed
        ? 'Every checked case holds.'
        : 'The importer breaks its contract (src/consumer/importer/README.md).'
    }`,
  );
  return lines.join('\n');
}
