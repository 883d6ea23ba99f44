/** The sink kit's report: a table for people (the checking commands' layout), JSON for CI. */
import {
  type CheckReport,
  formatRun,
  type RunSummary,
  summarizeRun,
} from '../check-runner/report.ts';

/** A case as the report gives it; its evidence: what the consumer handed over, what was held. */
export type CaseReport = CheckReport;

export interface SinkKitReport extends RunSummary {
  sink: {
    /** The definition's name, or what the options called a sink made by createSink(). */
    name: string;
    /** As SINK_MODULE or the command line named it; absent for createSink(). */
    spec?: string;
    /** The module's file; absent for createSink(). */
    file?: string;
    /** Where status changes go, from the definition's describe(); absent for createSink(). */
    describe?: string;
  };
  cases: CaseReport[];
}

export function summarize(
  cases: CaseReport[],
  context: { sink: SinkKitReport['sink']; startedAt: number },
): SinkKitReport {
  return { sink: context.sink, ...summarizeRun(cases, context.startedAt), cases };
}

export function formatTable(report: SinkKitReport): string {
  const { sink } = report;
  return formatRun({
    heading: [
      `Status sink contract of ${sink.name}${sink.file === undefined ? '' : ` (${sink.file})`}`,
      ...(sink.describe === undefined ? [] : [sink.describe]),
    ],
    where: 'a simulator and a consumer per case',
    summary: report,
    checks: report.cases,
    noun: 'Cases',
    verdict: {
      passed: 'Every checked case holds.',
      failed: 'The sink breaks its contract (src/consumer/sink/README.md).',
    },
  });
}
