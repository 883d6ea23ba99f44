import { describe, expect, it } from 'vitest';
import { PUBLIC_SECRETS } from '../../../../src/consumer/settings/public-secrets.ts';
import { DEFAULT_API_TOKEN } from '../../../../src/provider/provider.ts';
import { configProblems } from '../../../support/config-problems.ts';

const production = {
  NODE_ENV: 'production',
  IMPORTER_MODULE: 'file',
  WEBHOOK_SECRETS: 'whsec_a-secret-of-the-endpoint',
  API_BASE_URL: 'https://api.example.test',
  API_TOKEN: 'a-token-from-the-service',
};

describe('in production, the secrets this repository publishes are refused by name', () => {
  it.each([
    [
      'WEBHOOK_SECRETS',
      'whsec_compose-sandbox-only',
      /^WEBHOOK_SECRETS contains "whsec_compose-sandbox-only" \(the compose sandbox's public secret\): anyone can sign webhooks with it; set the signing secret of your endpoint$/,
    ],
    [
      'WEBHOOK_SECRETS',
      'whsec_replace_me',
      /^WEBHOOK_SECRETS contains "whsec_replace_me" \(.env.example's placeholder\)/,
    ],
    [
      'API_TOKEN',
      'sandbox-token',
      /^API_TOKEN is "sandbox-token" .*: set the token the service gave you$/,
    ],
    [
      'ADMIN_TOKEN',
      'dev-admin-token-for-local-use-only',
      /^ADMIN_TOKEN is "dev-admin-token-for-local-use-only" \(npm run dev's public admin token\): .*openssl rand -hex 32/,
    ],
    [
      'DATABASE_URL',
      'postgres://consumer:compose-sandbox-only@postgres:5432/consumer',
      /^DATABASE_URL's password is "compose-sandbox-only" .*: set a password of your own/,
    ],
  ])('%s=%s', (name, value, message) => {
    expect(configProblems({ ...production, [name]: value })).toEqual([
      expect.stringMatching(message),
    ]);
    // Outside production (npm run dev, the sandbox, the tests) they are what they are for.
    expect(configProblems({ ...production, NODE_ENV: 'development', [name]: value })).toEqual([]);
  });

  it('finds a public secret anywhere in a rotation, and a percent-encoded password', () => {
    expect(
      configProblems({
        ...production,
        WEBHOOK_SECRETS: 'whsec_the-new-one-of-the-endpoint,whsec_compose-sandbox-only',
      }),
    ).toEqual([expect.stringMatching(/^WEBHOOK_SECRETS contains \(entry 2\) "whsec_compose/)]);
    expect(
      configProblems({
        ...production,
        DATABASE_URL: 'postgresql://consumer:compose%2Dsandbox%2Donly@db/consumer',
      }),
    ).toHaveLength(1);
  });

  it('lets the sandbox token through to a plain-HTTP API: the simulator, never the service', () => {
    for (const url of ['http://127.0.0.1:4000', 'http://provider:4000']) {
      expect(
        configProblems({
          ...production,
          API_BASE_URL: url,
          API_ALLOW_INSECURE_HTTP: 'true',
          API_TOKEN: 'sandbox-token',
        }),
      ).toEqual([]);
    }
  });

  it.each(['ADMIN_SUBMIT_TOKEN', 'ADMIN_READ_TOKEN'])(
    '%s as ADMIN_TOKEN: a scoped token is no place for a public value either (issue 37)',
    (name) => {
      expect(
        configProblems({ ...production, [name]: 'dev-admin-token-for-local-use-only' }),
      ).toEqual([
        expect.stringMatching(
          new RegExp(
            `^${name} is "dev-admin-token-for-local-use-only" \\(npm run dev's public admin token\\): .*openssl rand -hex 32`,
          ),
        ),
      ]);
      expect(
        configProblems({
          ...production,
          NODE_ENV: 'development',
          [name]: 'dev-admin-token-for-local-use-only',
        }),
      ).toEqual([]);
    },
  );

  it('reports every public value at once, with the other problems', () => {
    const problems = configProblems({
      ...production,
      WEBHOOK_SECRETS: 'whsec_compose-sandbox-only',
      API_TOKEN: 'sandbox-token',
      ADMIN_TOKEN: 'dev-admin-token-for-local-use-only',
      WORKER_CONCURRENCY: 'lots',
    });
    expect(problems.map((p) => p.split(' ')[0])).toEqual([
      'WORKER_CONCURRENCY',
      'WEBHOOK_SECRETS',
      'API_TOKEN',
      'ADMIN_TOKEN',
    ]);
  });

  it('accepts secrets of its own', () => {
    expect(
      configProblems({
        ...production,
        ADMIN_TOKEN: 'x'.repeat(32),
        DATABASE_URL: 'postgres://u:p@db/c',
      }),
    ).toEqual([]);
  });

  it("lists the sandbox's default API token", () => {
    expect(PUBLIC_SECRETS.map((s) => s.value)).toContain(DEFAULT_API_TOKEN);
  });
});
