/** How the bench's report, targets and checks write their figures, in one place. */

/** A whole number with thousands separators: 12,000. */
export function integer(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** A share as a whole percentage: 0.374 is 37%. */
export function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/**
 * A scenario that did not do its work, for the report's last line: its name and why
 * (work-done.ts's shortfall without its `FAIL: `), or nothing when it did.
 */
export function failedScenario(name: string, shortfall: string | undefined): string[] {
  return shortfall === undefined ? [] : [`${name} ${shortfall.replace(/^FAIL: /, '')}`];
}
