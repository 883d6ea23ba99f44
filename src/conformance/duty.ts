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
