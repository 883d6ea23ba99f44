/**
 * The images under test, built from this repository's Dockerfiles as a user would build them,
 * once per test run: test files running at the same time take turns (a file lock), and the
 * second build is all cache hits.
 *
 * Base images: CONSUMER_BASE_IMAGE and CADDY_IMAGE when set (CI passes its stand-ins, since no
 * registry is reachable there), otherwise the Dockerfiles' defaults, pulled by the engine.
 */
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import lockfile from 'proper-lockfile';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../../..');

// .ci/docker.sh builds these two tags before the tests; keep its ci_docker_prebuild in step.
export const CONSUMER_IMAGE = 'invoicing-webhook-consumer:test';
export const GATEWAY_IMAGE = 'invoicing-webhook-gateway:test';

async function build(tag: string, context: string, args: Record<string, string | undefined>) {
  const buildArgs = Object.entries(args).flatMap(([name, value]) =>
    value === undefined ? [] : ['--build-arg', `${name}=${value}`],
  );
  // Host networking: a build step reaches the npm registry exactly as this machine does.
  const command = ['build', '--network', 'host', '-t', tag, ...buildArgs, context];
  try {
    await run('docker', command, { maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`docker ${command.join(' ')} failed:\n${`${stdout}\n${stderr}`.slice(-4000)}`);
  }
}

let built: Promise<void> | undefined;

/** Builds both images (once per process; across processes, one at a time). */
export function buildImages(): Promise<void> {
  built ??= (async () => {
    const release = await lockfile.lock(join(tmpdir(), 'invoicing-webhook-image-build'), {
      realpath: false,
      retries: { retries: 900, minTimeout: 1000, maxTimeout: 1000 },
    });
    try {
      await build(CONSUMER_IMAGE, ROOT, { BASE_IMAGE: process.env.CONSUMER_BASE_IMAGE });
      await build(GATEWAY_IMAGE, join(ROOT, 'docker/gateway'), {
        CADDY_IMAGE: process.env.CADDY_IMAGE,
      });
    } finally {
      await release();
    }
  })();
  return built;
}
