/**
 * The compose files are safe by default (issue 26): as `docker compose config` reads them, with
 * Compose v2 where it is installed, else v1 (Debian 12's docker-compose), and an environment
 * holding nothing but PATH and HOME. Without its secrets, or without an importer chosen (issue
 * 37: as the image, which refuses to start without one), the production file stops every
 * command naming what is missing; with them it publishes the gateway on this host only and
 * allows no plain-HTTP API; the sandbox is an override with settings generated for it, `file`
 * among them. docker/.env fills in the files' variables and reaches a container only through
 * what its `environment` lists, as compose.yaml's comment says.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parse } from 'yaml';
import { PUBLIC_SECRETS } from '../../src/consumer/settings/public-secrets.ts';
import { COMPOSE_DIR, composeCommand, generateSandboxEnv } from './support/compose.ts';
import { describeWithEngine } from './support/engine.ts';

const run = promisify(execFile);

const SECRETS = {
  WEBHOOK_SECRETS: 'whsec_compose-config-test-0123456789',
  API_BASE_URL: 'https://api.example.test',
  API_TOKEN: 'compose-config-test-token',
};
/** What the production files require: the secrets, and the importer chosen. */
const REQUIRED = { ...SECRETS, IMPORTER_MODULE: 'my-erp' };

interface Service {
  environment?: Record<string, string | number>;
  ports?: (string | { host_ip?: string; published?: string | number; target: number })[];
}

/**
 * `config` of `files` (in `dir`, docker/ by default): exit code, output, and the merged model
 * when it succeeds.
 */
async function config(
  files: string[],
  env: Record<string, string>,
  envFile?: string,
  dir = COMPOSE_DIR,
) {
  const { argv } = await composeCommand();
  const [command, ...rest] = argv;
  const args = [
    ...rest,
    ...(envFile === undefined ? [] : ['--env-file', envFile]),
    ...files.flatMap((file) => ['-f', join(dir, file)]),
    'config',
  ];
  const clean = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env };
  try {
    const { stdout, stderr } = await run(command as string, args, { env: clean });
    const model = parse(stdout) as { services: Record<string, Service> };
    return { code: 0, output: `${stdout}${stderr}`, services: model.services };
  } catch (error) {
    const {
      code,
      stdout = '',
      stderr = '',
    } = error as {
      code: number;
      stdout?: string;
      stderr?: string;
    };
    return { code, output: `${stdout}${stderr}`, services: {} };
  }
}

/** Published ports as `address:published:target`, from v1's short or v2's long syntax. */
function published(service: Service | undefined): string[] {
  return (service?.ports ?? []).map((port) =>
    typeof port === 'string'
      ? port.replace(/\/tcp$/, '')
      : `${port.host_ip ?? '0.0.0.0'}:${port.published}:${port.target}`,
  );
}

describeWithEngine('the compose files, as `docker compose config` reads them', () => {
  describe('docker/compose.yaml alone (production)', () => {
    it('refuses to go on without its secrets or an importer, naming the missing one', async () => {
      const none = await config(['compose.yaml'], {});
      expect(none.code).not.toBe(0);
      expect(none.output).toMatch(/is not set: the \S+ .*docs\/(deploying|forking)\.md#/);
      for (const missing of Object.keys(REQUIRED)) {
        const rest = Object.fromEntries(Object.entries(REQUIRED).filter(([n]) => n !== missing));
        const result = await config(['compose.yaml'], rest);
        expect(result.code, missing).not.toBe(0);
        const what = {
          WEBHOOK_SECRETS: 'the signing secret of your webhook endpoint',
          API_BASE_URL: "the messaging API's https:// URL",
          API_TOKEN: 'the messaging API token the service gave you',
          IMPORTER_MODULE: 'the importer that takes your invoices',
        }[missing];
        expect(result.output, missing).toContain(`is not set: ${what}`);
        expect(result.output, missing).toContain(missing);
      }
    });

    it('requires an importer choice as the image does: without IMPORTER_MODULE, no file by default (issue 37)', async () => {
      for (const files of [['compose.yaml'], ['compose.yaml', 'compose.postgres.yaml']]) {
        const env = { ...SECRETS, POSTGRES_PASSWORD: 'p0stgres0123' };
        const { code, output } = await config(files, env);
        expect(code, files.join(' ')).not.toBe(0);
        expect(output, files.join(' ')).toContain('IMPORTER_MODULE');
        expect(output, files.join(' ')).toContain(
          "is not set: the importer that takes your invoices (docs/forking.md#deploy), your importer's name or file",
        );
      }
      // Chosen, it is passed as chosen, to every service that imports.
      const { services } = await config(['compose.yaml'], { ...SECRETS, IMPORTER_MODULE: 'file' });
      for (const name of ['consumer', 'reconcile-schedule', 'reconcile']) {
        expect(services[name]?.environment?.IMPORTER_MODULE, name).toBe('file');
      }
    });

    it('takes docker/.env beside the file for its variables; a container gets only what it lists', async () => {
      // A copy of docker/, as a deployment has it with its docker/.env.
      const dir = mkdtempSync(join(tmpdir(), 'compose-dotenv-'));
      try {
        cpSync(COMPOSE_DIR, dir, { recursive: true });
        const dotenv = { ...REQUIRED, ERP_BASE_URL: 'https://erp.example.test' };
        writeFileSync(
          join(dir, '.env'),
          Object.entries(dotenv)
            .map(([name, value]) => `${name}=${value}\n`)
            .join(''),
        );
        const { code, output, services } = await config(['compose.yaml'], {}, undefined, dir);
        expect(code, output).toBe(0);
        expect(services.consumer?.environment).toMatchObject(REQUIRED);
        // Not listed under the consumer's environment: it never reaches the container.
        expect(services.consumer?.environment).not.toHaveProperty('ERP_BASE_URL');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('with them: the gateway on this host only, no plain-HTTP API, no sandbox', async () => {
      const { code, output, services } = await config(['compose.yaml'], REQUIRED);
      expect(code, output).toBe(0);
      expect(Object.keys(services).sort()).toEqual([
        'consumer',
        'gateway',
        'reconcile',
        'reconcile-schedule',
      ]);
      expect(published(services.gateway)).toEqual(['127.0.0.1:8443:8443']);
      expect(published(services.consumer)).toEqual(['127.0.0.1:3001:3001']);
      for (const name of ['consumer', 'reconcile-schedule', 'reconcile']) {
        expect(services[name]?.environment, name).toMatchObject({
          ...REQUIRED,
          API_ALLOW_INSECURE_HTTP: 'false',
        });
      }
      for (const { value } of PUBLIC_SECRETS) expect(output).not.toContain(value);
    });

    it('opens the gateway beyond this host when asked', async () => {
      const { services } = await config(['compose.yaml'], {
        ...REQUIRED,
        GATEWAY_BIND_ADDRESS: '0.0.0.0',
        GATEWAY_HTTPS_PORT: '443',
      });
      expect(published(services.gateway)).toEqual(['0.0.0.0:443:8443']);
    });
  });

  describe('docker/compose.postgres.yaml over it', () => {
    const files = ['compose.yaml', 'compose.postgres.yaml'];

    it('refuses to go on without POSTGRES_PASSWORD, or the secrets for its second replica', async () => {
      const result = await config(files, REQUIRED);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain('is not set: the password of the compose PostgreSQL');
      const withPassword = await config(files, { POSTGRES_PASSWORD: 'p0stgres0123' });
      expect(withPassword.code).not.toBe(0);
      expect(withPassword.output).toContain('is not set');
    });

    it('with them: both replicas on the database, no plain-HTTP API', async () => {
      const { code, output, services } = await config(files, {
        ...REQUIRED,
        POSTGRES_PASSWORD: 'p0stgres0123',
      });
      expect(code, output).toBe(0);
      for (const name of ['consumer', 'consumer-2']) {
        expect(services[name]?.environment, name).toMatchObject({
          ...REQUIRED,
          API_ALLOW_INSECURE_HTTP: 'false',
          DATABASE_URL: 'postgres://consumer:p0stgres0123@postgres:5432/consumer',
        });
      }
      expect(services.provider).toBeUndefined();
    });
  });

  describe('the sandbox: docker/compose.sandbox.yaml with docker/sandbox-env.sh', () => {
    it('runs both variants on settings generated for it, none of them a published one', async () => {
      const sandbox = await generateSandboxEnv();
      for (const name of ['WEBHOOK_SECRETS', 'API_TOKEN', 'ADMIN_TOKEN', 'PROVIDER_ADMIN_TOKEN']) {
        expect(sandbox.values[name], name).toMatch(/^(whsec_)?[0-9a-f]{48}$/);
      }
      const another = await generateSandboxEnv();
      another.remove();
      onTestFinished(() => sandbox.remove());
      expect(another.values.WEBHOOK_SECRETS).not.toBe(sandbox.values.WEBHOOK_SECRETS);
      for (const files of [
        ['compose.yaml', 'compose.sandbox.yaml'],
        ['compose.yaml', 'compose.postgres.yaml', 'compose.sandbox.yaml'],
      ]) {
        const { code, output, services } = await config(files, {}, sandbox.file);
        expect(code, output).toBe(0);
        expect(services.provider?.environment, files.join(' ')).toMatchObject({
          PROVIDER_ALLOWED_HOSTS: 'provider',
          PROVIDER_ADMIN_TOKEN: sandbox.values.PROVIDER_ADMIN_TOKEN,
          PROVIDER_API_TOKEN: sandbox.values.API_TOKEN,
          PROVIDER_WEBHOOK_SECRET: sandbox.values.WEBHOOK_SECRETS,
        });
        expect(published(services.provider)).toEqual(['127.0.0.1:4000:4000']);
        // The sandbox keeps the file importer, chosen by its generated settings.
        expect(sandbox.values.IMPORTER_MODULE).toBe('file');
        expect(services.consumer?.environment).toMatchObject({
          API_BASE_URL: 'http://provider:4000',
          API_ALLOW_INSECURE_HTTP: 'true',
          IMPORTER_MODULE: 'file',
        });
        for (const { value } of PUBLIC_SECRETS) expect(output).not.toContain(value);
      }
    });
  });
});
