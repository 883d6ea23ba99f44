/**
 * A compose project of docker/ brought up as a user brings it up, for the compose tests: with
 * Compose v2 (`docker compose`) where it is installed, else with v1 (`docker-compose`, Debian
 * 12's), which reads the same files.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import {
  DockerComposeEnvironment,
  type StartedDockerComposeEnvironment,
  type StartedTestContainer,
  type WaitStrategy,
} from 'testcontainers';

const run = promisify(execFile);
export const COMPOSE_DIR = new URL('../../../docker/', import.meta.url).pathname;

export interface ComposeProject {
  /** The services' container, by service name. */
  container(service: string): StartedTestContainer;
  /** The compose command on this project's files, as a user types it; resolves with its output. */
  run(args: string[]): Promise<string>;
  /** What the service has logged so far. */
  logs(service: string): Promise<string>;
  down(): Promise<void>;
}

/** Compose v2 when the plugin answers, else the standalone v1 command. */
async function composeCommand(): Promise<{ v2: boolean; argv: string[] }> {
  const v2 = await run('docker', ['compose', 'version']).then(
    () => true,
    () => false,
  );
  return { v2, argv: v2 ? ['docker', 'compose'] : ['docker-compose'] };
}

/**
 * `up` of `files` (in docker/) under a fresh project name, with `env` as the environment the
 * files interpolate, waiting for each service of `waits`. A failed wait takes the services down
 * at once: DEBUG=testcontainers:containers shows what they logged before.
 */
export async function upCompose(options: {
  files: string[];
  env: Record<string, string>;
  waits: Record<string, WaitStrategy>;
}): Promise<ComposeProject> {
  const compose = await composeCommand();
  // Letters and digits only: Compose v1 drops anything else from a project name.
  const project = `invoicingwebhooktest${randomBytes(4).toString('hex')}`;
  // testcontainers drops the project from v2's names (project-service-1) but not from v1's.
  const name = (service: string) => (compose.v2 ? `${service}-1` : `${project}_${service}_1`);
  let environment = new DockerComposeEnvironment(COMPOSE_DIR, options.files)
    .withProjectName(project)
    .withEnvironment(options.env)
    .withClientOptions(compose.v2 ? {} : { executable: { standalone: true } });
  for (const [service, wait] of Object.entries(options.waits)) {
    environment = environment.withWaitStrategy(name(service), wait);
  }
  const started: StartedDockerComposeEnvironment = await environment.up();

  const container = (service: string) => started.getContainer(name(service));
  return {
    container,
    async run(args) {
      const [command, ...rest] = compose.argv;
      const files = options.files.flatMap((file) => ['-f', `${COMPOSE_DIR}${file}`]);
      const { stdout, stderr } = await run(
        command as string,
        [...rest, '-p', project, ...files, ...args],
        { env: { ...process.env, ...options.env }, maxBuffer: 16 * 1024 * 1024 },
      );
      return `${stdout}${stderr}`;
    },
    async logs(service) {
      const { stdout, stderr } = await run('docker', ['logs', container(service).getId()], {
        maxBuffer: 64 * 1024 * 1024,
      });
      return `${stdout}${stderr}`;
    },
    async down() {
      await started.down({ removeVolumes: true, timeout: 20_000 });
    },
  };
}
