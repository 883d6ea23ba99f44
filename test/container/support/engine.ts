/**
 * Whether a container engine answers, for test/container. Without one the container tests are
 * reported as skipped with the reason, except in CI (CI=true), where that is a failure: CI
 * provisions an engine (.ci/docker.sh), so a missing one means the provisioning broke.
 */
import { getContainerRuntimeClient } from 'testcontainers';
import { describe, it } from 'vitest';

async function findEngine(): Promise<{ ok: true } | { ok: false; reason: string }> {
  try {
    await getContainerRuntimeClient();
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

const engine = await findEngine();

/**
 * A step of a container test waits on containers (a health check's first interval alone is
 * 10 s), so each gets a minute rather than the suite's 20 s.
 */
const STEP_TIMEOUT_MS = 60_000;

/** `describe` when an engine answers; otherwise skipped with the reason, or failing in CI. */
export function describeWithEngine(name: string, body: () => void): void {
  if (engine.ok) {
    describe(name, { timeout: STEP_TIMEOUT_MS }, body);
  } else if (process.env.CI === 'true') {
    describe(name, () => {
      it('has a container engine (CI=true: .ci/docker.sh provisions one)', () => {
        throw new Error(`No container engine: ${engine.reason}`);
      });
    });
  } else {
    const reason = `no container engine: ${engine.reason}`;
    // Shown in the run's output even by reporters that list skipped files without their tests.
    console.warn(`Skipping "${name}": ${reason}`);
    describe.skip(`${name} (skipped: ${reason})`, body);
  }
}
