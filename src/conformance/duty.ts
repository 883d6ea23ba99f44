/** A consumer duty as the runner reports it. */

export type DutyResult = 'pass' | 'fail' | 'not checked';

export interface DutyReport {
  /** Stable identifier, e.g. `signature.tampered`: CI can key on it. */
  id: string;
  title: string;
  /** Where the duty is described, relative to the repository root. */
  doc: string;
  result: DutyResult;
  /** What was sent, what came back, which API calls the consumer made. */
  evidence: string[];
}

/** A duty's definition: what it checks and where that is written down. */
export interface Duty {
  id: string;
  title: string;
  doc: string;
}

export function report(
  duty: Duty,
  result: DutyResult | boolean,
  evidence: readonly string[],
): DutyReport {
  const outcome = typeof result === 'boolean' ? (result ? 'pass' : 'fail') : result;
  return { ...duty, result: outcome, evidence: [...evidence] };
}
