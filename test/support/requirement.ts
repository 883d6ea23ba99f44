/**
 * Suites that need something outside Node (a container engine, PostgreSQL, Chromium, root for
 * a tmpfs, a terminal) run where it is here. Elsewhere they are skipped with the reason in
 * their name and in the output, except in CI (CI=true, set by .ci/run, which provisions all of
 * them): there a missing requirement is a failing test that names it, never a silent skip.
 */
import { describe, it } from 'vitest';

export const IN_CI = /^(true|1)$/i.test(process.env.CI ?? '');

/** `describe` when `missing` is undefined; otherwise skipped with the reason, or failing in CI. */
export function describeIfAvailable(
  name: string,
  missing: string | undefined,
  body: () => void,
  options: { timeout?: number } = {},
): void {
  if (missing === undefined) describe(name, options, body);
  else if (IN_CI) {
    describe(name, () => {
      it(`has what it needs (CI=true: .ci/run provisions it): ${missing}`, () => {
        throw new Error(`${missing}; in CI this suite must run, not be skipped`);
      });
    });
  } else {
    // Shown in the run's output even by reporters that list skipped files without their tests.
    console.warn(`Skipping "${name}": ${missing}`);
    describe.skip(`${name} (skipped: ${missing})`, body);
  }
}

/** `it`, under the same rule as describeIfAvailable. */
export function itIfAvailable(
  name: string,
  missing: string | undefined,
  body: () => Promise<void>,
  timeout?: number,
): void {
  if (missing === undefined) it(name, body, timeout);
  else if (IN_CI) {
    it(name, () => {
      throw new Error(`${missing}; in CI this test must run, not be skipped`);
    });
  } else {
    console.warn(`Skipping "${name}": ${missing}`);
    it.skip(`${name} (skipped: ${missing})`, body);
  }
}
