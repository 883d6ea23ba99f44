/**
 * A case's evidence as it goes, in the contract kits: lines of what happened, and
 * `expect`ations that, when broken, add a `wrong:` line saying why it matters and fail the
 * case. The verdict is the case's result with those lines.
 */
import type { CheckResult } from './report.ts';

export interface CaseVerdict {
  result: CheckResult;
  evidence: string[];
}

export interface Evidence {
  note(line: string): void;
  /** Records `why` and fails the case unless `ok`; returns `ok`. */
  expect(ok: boolean, why: string): boolean;
  verdict(): CaseVerdict;
}

export function createEvidence(): Evidence {
  const lines: string[] = [];
  let failed = false;
  return {
    note: (line) => {
      lines.push(line);
    },
    expect(ok, why) {
      if (!ok) {
        failed = true;
        lines.push(`wrong: ${why}`);
      }
      return ok;
    },
    verdict: () => ({ result: failed ? 'fail' : 'pass', evidence: [...lines] }),
  };
}

export function notChecked(why: string, evidence: readonly string[] = []): CaseVerdict {
  return { result: 'not checked', evidence: [...evidence, why] };
}
