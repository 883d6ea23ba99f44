/**
 * The compose sandbox as the compose tests bring it up, as docs/deploying.md has a user do:
 * the images under test built, the settings `sh docker/sandbox-env.sh` generates given as the
 * env file, a free port for each port the files publish, and no demo traffic (a test sends
 * what it checks).
 */
import type { WaitStrategy } from 'testcontainers';
import { freePort } from '../../support/free-port.ts';
import { type ComposeProject, generateSandboxEnv, upCompose } from './compose.ts';
import { buildImages, CONSUMER_IMAGE, GATEWAY_IMAGE } from './images.ts';

export interface SandboxCompose extends ComposeProject {
  /** A setting of the generated docker/sandbox.env. */
  setting(name: string): string;
  /** What the files were interpolated with: the images, the published ports, `env`. */
  env: Readonly<Record<string, string>>;
}

export async function upSandboxCompose(options: {
  /** In docker/, the base file first. */
  files: string[];
  /** The variables naming the ports the files publish: each gets a free port. */
  ports: string[];
  /** More variables for the files. */
  env?: Record<string, string>;
  waits: Record<string, WaitStrategy>;
}): Promise<SandboxCompose> {
  await buildImages();
  const sandbox = await generateSandboxEnv();
  const env: Record<string, string> = {
    CONSUMER_IMAGE,
    GATEWAY_IMAGE,
    DEMO_INTERVAL_SECONDS: '0',
    ...options.env,
  };
  for (const variable of options.ports) env[variable] = String(await freePort());
  const compose = await upCompose({
    files: options.files,
    envFile: sandbox.file,
    env,
    waits: options.waits,
  }).catch((error: unknown) => {
    sandbox.remove();
    throw error;
  });
  return {
    ...compose,
    env,
    setting: (name) => sandbox.values[name] as string,
    // The env file is read by every compose command, `down` included: removed after it.
    down: () => compose.down().finally(() => sandbox.remove()),
  };
}
