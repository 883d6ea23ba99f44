import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/consumer/config.ts';

const minimal = {
  WEBHOOK_SECRETS: 'whsec_a',
  API_BASE_URL: 'https://api.example.test',
  API_TOKEN: 'token',
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    expect(loadConfig(minimal)).toEqual({
      port: 3000,
      webhookPath: '/webhooks',
      webhookSecrets: ['whsec_a'],
      webhookToleranceSeconds: 300,
      webhookMaxBodyBytes: 1048576,
      webhookMaxConnections: 256,
      webhookMaxInflightBytes: 16777216,
      webhookCredential: undefined,
      apiBaseUrl: 'https://api.example.test',
      apiAllowInsecureHttp: false,
      apiToken: 'token',
      apiTimeoutMs: 10000,
      databaseUrl: 'sqlite:./data/consumer.db',
      documentsDir: './data/documents',
      workerConcurrency: 8,
      workerMaxAttempts: 10,
      logLevel: 'info',
      adminToken: undefined,
      operationsPort: undefined,
      shutdownTimeoutMs: 10000,
    });
  });

  it('returns a frozen object', () => {
    expect(Object.isFrozen(loadConfig(minimal))).toBe(true);
  });

  it('splits and trims rotation secrets', () => {
    expect(loadConfig({ ...minimal, WEBHOOK_SECRETS: ' new , old ,' }).webhookSecrets).toEqual([
      'new',
      'old',
    ]);
  });

  it.each([
    ['bearer:abc', { type: 'bearer', token: 'abc' }],
    ['basic:user:p:w', { type: 'basic', username: 'user', password: 'p:w' }],
    ['header:X-Key:v:1', { type: 'header', name: 'X-Key', value: 'v:1' }],
  ])('parses WEBHOOK_CREDENTIAL %s', (raw, expected) => {
    expect(loadConfig({ ...minimal, WEBHOOK_CREDENTIAL: raw }).webhookCredential).toEqual(expected);
  });

  it('names every missing required variable at once', () => {
    const problems = problemsOf({});
    expect(problems.join('\n')).toMatch(/WEBHOOK_SECRETS is required/);
    expect(problems.join('\n')).toMatch(/API_BASE_URL is required/);
    expect(problems.join('\n')).toMatch(/API_TOKEN is required/);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['PORT', '3000.5'],
    ['WEBHOOK_TOLERANCE_SECONDS', '-5'],
    ['WEBHOOK_MAX_BODY_BYTES', '0'],
    ['WORKER_CONCURRENCY', '0'],
    ['WEBHOOK_PATH', 'webhooks'],
    ['API_BASE_URL', 'ftp://x'],
    ['DATABASE_URL', 'mysql://x'],
    ['LOG_LEVEL', 'loud'],
    ['WEBHOOK_CREDENTIAL', 'token:abc'],
  ])('rejects %s=%s naming the variable, never defaulting', (name, value) => {
    const problems = problemsOf({ ...minimal, [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(name);
  });

  it('never echoes a bad credential value, which may be a secret', () => {
    const [problem] = problemsOf({ ...minimal, WEBHOOK_CREDENTIAL: 'token=s3cr3t-value' });
    expect(problem).toContain('WEBHOOK_CREDENTIAL');
    expect(problem).not.toContain('s3cr3t-value');
  });
});
