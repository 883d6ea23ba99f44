/**
 * The shipped deployments are safe by default (issue 26, medium and low): a forgotten variable
 * stops the deployment instead of falling back to a value printed in this repository, the
 * production image refuses such values by name, the gateway logs no credential header, and the
 * cluster's operations port is not open to every pod.
 *
 * The compose files are read here as files (what they default to); test/container/compose-config.test.ts
 * runs them through Compose v1 or v2, and test/container/gateway.test.ts runs the gateway.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { PUBLIC_SECRETS } from '../../src/consumer/settings/public-secrets.ts';
import { runConsumerToExit, startConsumerProcess } from './support/consumer-process.ts';

const DOCKER = join(import.meta.dirname, '../../docker');
const read = (file: string) => readFileSync(join(DOCKER, file), 'utf8');

interface ComposeFile {
  services: Record<string, { environment?: Record<string, unknown>; ports?: string[] }>;
  [key: string]: unknown;
}
const compose = (file: string) => parse(read(file)) as ComposeFile;

const PRODUCTION = {
  NODE_ENV: 'production',
  IMPORTER_MODULE: 'file',
  WEBHOOK_SECRETS: 'whsec_deployment-defaults-test-0123456789',
  API_BASE_URL: 'https://api.example.test',
  API_TOKEN: 'deployment-defaults-test-token',
};

describe('the production image refuses the secrets this repository publishes', () => {
  it.each([
    ['WEBHOOK_SECRETS', 'whsec_compose-sandbox-only'],
    ['API_TOKEN', 'sandbox-token'],
    ['ADMIN_TOKEN', 'dev-admin-token-for-local-use-only'],
    ['DATABASE_URL', 'postgres://consumer:compose-sandbox-only@127.0.0.1:9/consumer'],
  ])('%s=%s: exit 2, named, never listening', async (name, value) => {
    const { code, output } = await runConsumerToExit({ ...PRODUCTION, [name]: value });
    expect(code).toBe(2);
    expect(output).toMatch(new RegExp(`^  - ${name}('s password)? (is|contains) "`, 'm'));
    expect(output).not.toContain('consumer listening');
  });

  it('starts with secrets of its own', async () => {
    const consumer = await startConsumerProcess(PRODUCTION);
    await consumer.stop();
  });
});

describe('the compose files have no secret of their own', () => {
  const required = /^\$\{([A-Z_]+):\?[^}]+\}$/;

  it.each([
    ['compose.yaml', 'consumer'],
    ['compose.yaml', 'reconcile-schedule'],
    ['compose.postgres.yaml', 'consumer-2'],
  ])('%s, service %s: WEBHOOK_SECRETS, API_BASE_URL and API_TOKEN are required', (file, name) => {
    const text = read(file);
    // The anchor's environment, where the services of compose.yaml take theirs from.
    const environment =
      name === 'consumer-2'
        ? compose(file).services[name]?.environment
        : (compose(file)['x-consumer'] as { environment: Record<string, unknown> }).environment;
    for (const variable of ['WEBHOOK_SECRETS', 'API_BASE_URL', 'API_TOKEN']) {
      expect(String(environment?.[variable]), `${file} ${variable}`).toMatch(required);
      expect(required.exec(String(environment?.[variable]))?.[1]).toBe(variable);
    }
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own ${VAR} syntax
    expect(environment?.API_ALLOW_INSECURE_HTTP).toBe('${API_ALLOW_INSECURE_HTTP:-false}');
    expect(text).not.toMatch(/API_ALLOW_INSECURE_HTTP:-true/);
  });

  it('requires POSTGRES_PASSWORD, in the database URL as in the database', () => {
    const file = compose('compose.postgres.yaml');
    expect(String(file.services.postgres?.environment?.POSTGRES_PASSWORD)).toMatch(
      /^\$\{POSTGRES_PASSWORD:\?/,
    );
    expect(String(file['x-database-url'])).toMatch(/:\$\{POSTGRES_PASSWORD:\?[^}]+\}@/);
  });

  it('publishes the gateway on this host only, unless GATEWAY_BIND_ADDRESS says otherwise', () => {
    expect(compose('compose.yaml').services.gateway?.ports).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own ${VAR} syntax
      '${GATEWAY_BIND_ADDRESS:-127.0.0.1}:${GATEWAY_HTTPS_PORT:-8443}:8443',
    ]);
  });

  it('leaves the sandbox to its override, and prints none of the published secrets', () => {
    for (const file of ['compose.yaml', 'compose.postgres.yaml']) {
      expect(compose(file).services.provider, file).toBeUndefined();
    }
    expect(compose('compose.sandbox.yaml').services.provider).toBeDefined();
    const files = [
      'compose.yaml',
      'compose.postgres.yaml',
      'compose.sandbox.yaml',
      'sandbox-env.sh',
      'gateway/Caddyfile',
    ];
    for (const file of files) {
      for (const { value } of PUBLIC_SECRETS) expect(read(file), file).not.toContain(value);
    }
  });
});

describe('the gateways log no credential header', () => {
  it('Caddy drops every request header from its access log and from its own log', () => {
    const caddyfile = read('gateway/Caddyfile');
    const snippet = /^\(no-request-headers\) \{\n([\s\S]*?)\n\}/m.exec(caddyfile)?.[1] ?? '';
    expect(snippet).toMatch(/format filter \{[\s\S]*request>headers delete/);
    // Both the global default log (errors: a 502 is logged with its request) and the site's.
    expect(caddyfile).toMatch(/log default \{\s*import no-request-headers\s*\}/);
    expect(caddyfile).toMatch(/\n\tlog \{\s*import no-request-headers\s*\}/);
  });
});

describe('Kubernetes: the operations port is not open to every pod', () => {
  it('admits port 3001 only from the monitoring pods', () => {
    const [policy] = parseAllDocuments(read('kubernetes/networkpolicy.yaml')).map((d) => d.toJS());
    const rules = policy.spec.ingress as { from?: unknown[]; ports: { port: string }[] }[];
    const operations = rules.filter((rule) => rule.ports.some((p) => p.port === 'operations'));
    expect(operations).toHaveLength(1);
    expect(operations[0]?.from).toEqual([
      { podSelector: { matchLabels: { 'app.kubernetes.io/component': 'monitoring' } } },
    ]);
  });
});
