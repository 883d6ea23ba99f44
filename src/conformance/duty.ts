/** A consumer duty as the runner reports it. */
import type { CheckReport, CheckResult } from '../check-runner/report.ts';

export type DutyResult = CheckResult;

/** A duty's report; its evidence: what was sent, what came back, which API calls were made. */
export type DutyReport = CheckReport;

/** A duty's definition: what it checks and where that is written down. */
export interface Duty {
  id: string;
  title: string;
  doc: string;
}

/**
 * A duty whose verdict waits for the end of the run: nothing may happen later (a refused
 * request acted upon, a duplicate imported), or the answers it was sent are still to come.
 */
export interface Pending {
  finalize(): Promise<DutyReport>;
}

export function report(
  duty: Duty,
  result: DutyResult | boolean,
  evidence: readonly string[],
): DutyReport {
  const outcome = typeof result === 'boolean' ? (result ? 'pass' : 'fail') : result;
  return { ...duty, result: outcome, evidence: [...evidence] };
}

/** A verdict known now, for a duty the runner otherwise finalizes with the pending ones. */
export const decided = (verdict: DutyReport): Pending => ({ finalize: async () => verdict });
