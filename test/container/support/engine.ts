/**
 * Whether a container engine answers, for test/container. Without one the container tests are
 * reported as skipped with the reason, except in CI (CI=true), where that is a failure: CI
 * provisions an engine (.ci/docker.sh), so a missing one means the provisioning broke.
 */
import { getContainerRuntimeClient, type StartedNetwork } from 'testcontainers';
import { describeIfAvailable } from '../../support/requirement.ts';

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
  const missing = engine.ok ? undefined : `no container engine (.ci/docker.sh): ${engine.reason}`;
  describeIfAvailable(name, missing, body, { timeout: STEP_TIMEOUT_MS });
}

/** The address containers on `network` reach this host at: the network's gateway. */
export async function hostAddressOn(network: StartedNetwork): Promise<string> {
  const inspect = await (await getContainerRuntimeClient()).network
    .getById(network.getId())
    .inspect();
  const gateway = inspect.IPAM?.Config?.[0]?.Gateway;
  if (gateway === undefined) throw new Error('the test network has no gateway address');
  return gateway;
}
