import { describe, expect, it } from 'vitest';
import {
  configWarnings,
  coreVariableNames,
  isLoopbackUrl,
  loadApiConfig,
  loadConfig,
  loadReconcileScheduleConfig,
  loadStoreConfig,
  loadSubmitConfig,
  readConfig,
} from '../../../src/consumer/config.ts';
import { configProblems } from '../../support/config-problems.ts';

const minimal = {
  WEBHOOK_SECRETS: 'whsec_a',
  API_BASE_URL: 'https://api.example.test',
  API_TOKEN: 'token',
};

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
      apiDeadlineMs: 60_000,
      apiMinBytesPerSecond: 65_536,
      apiMaxDocumentBytes: 104_857_600,
      databaseUrl: 'sqlite:./data/consumer.db',
      databasePoolSize: 10,
      documentsDir: './data/documents',
      workerConcurrency: 32,
      workerMaxAttempts: 10,
      workerBackoffMaxMs: 300_000,
      claimLeaseMs: 30_000,
      submissionLookupDelayMs: 10_000,
      sinkConcurrency: 16,
      sinkDeliveryTimeoutMs: 30_000,
      importTimeoutMs: 60_000,
      logLevel: 'info',
      adminToken: undefined,
      operationsPort: undefined,
      shutdownTimeoutMs: 10000,
      role: 'all',
      retention: { bodyDays: 30, eventDays: 90, deadDays: 180, dedupeDays: 200, messageDays: 400 },
      retentionIntervalSeconds: 3600,
    });
  });

  it('reads the retention policy, keeping eventIds at least as long as the service redelivers', () => {
    expect(loadConfig({ ...minimal, RETENTION_ENABLED: 'false' }).retention).toBeUndefined();
    expect(loadConfig({ ...minimal, RETENTION_BODY_DAYS: '0' }).retention?.bodyDays).toBe(0);
    expect(configProblems({ ...minimal, RETENTION_DEDUPE_DAYS: '30' })).toEqual([
      'RETENTION_DEDUPE_DAYS must be an integer from 184 to 36500 (got "30")',
    ]);
    expect(configProblems({ ...minimal, RETENTION_BODY_DAYS: '100' })).toEqual([
      expect.stringMatching(/^RETENTION_BODY_DAYS must not exceed RETENTION_EVENT_DAYS/),
    ]);
    expect(configProblems({ ...minimal, RETENTION_DEAD_DAYS: '60' })).toEqual([
      expect.stringMatching(
        /^RETENTION_DEAD_DAYS must be at least RETENTION_EVENT_DAYS \(60 < 90\)/,
      ),
    ]);
    expect(loadConfig({ ...minimal, RETENTION_DEAD_DAYS: '90' }).retention?.deadDays).toBe(90);
    expect(configProblems({ ...minimal, RETENTION_MESSAGE_DAYS: '190' })).toEqual([
      expect.stringMatching(/^RETENTION_MESSAGE_DAYS must be at least RETENTION_DEDUPE_DAYS/),
    ]);
    expect(configProblems({ ...minimal, RETENTION_ENABLED: 'no' })).toEqual([
      'RETENTION_ENABLED must be true or false (got "no")',
    ]);
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
    const problems = configProblems({});
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
    const problems = configProblems({ ...minimal, [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(name);
  });

  it('never echoes a bad credential value, which may be a secret', () => {
    const [problem] = configProblems({ ...minimal, WEBHOOK_CREDENTIAL: 'token=s3cr3t-value' });
    expect(problem).toContain('WEBHOOK_CREDENTIAL');
    expect(problem).not.toContain('s3cr3t-value');
  });

  describe('security rules (issue 17)', () => {
    const ADMIN = 'a'.repeat(32);

    it('requires ADMIN_TOKEN to have at least 32 characters, without echoing it', () => {
      const [problem, ...rest] = configProblems({ ...minimal, ADMIN_TOKEN: 'short-admin-token' });
      expect(rest).toEqual([]);
      expect(problem).toMatch(/^ADMIN_TOKEN must be at least 32 characters/);
      expect(problem).not.toContain('short-admin-token');
      expect(loadConfig({ ...minimal, ADMIN_TOKEN: ADMIN }).adminToken).toBe(ADMIN);
    });

    it('holds the scoped admin tokens to the same length, without echoing them (issue 37)', () => {
      expect(
        configProblems({
          ...minimal,
          ADMIN_SUBMIT_TOKEN: 'short-submit-token',
          ADMIN_READ_TOKEN: 'short-read-token',
        }),
      ).toEqual([
        expect.stringMatching(/^ADMIN_SUBMIT_TOKEN must be at least 32 characters/),
        expect.stringMatching(/^ADMIN_READ_TOKEN must be at least 32 characters/),
      ]);
      const config = loadConfig({
        ...minimal,
        ADMIN_SUBMIT_TOKEN: 's'.repeat(32),
        ADMIN_READ_TOKEN: 'r'.repeat(32),
      });
      expect(config).toMatchObject({
        adminToken: undefined,
        adminSubmitToken: 's'.repeat(32),
        adminReadToken: 'r'.repeat(32),
      });
    });

    it('refuses two admin variables holding one token, naming both and neither value (issue 37)', () => {
      const problems = configProblems({
        ...minimal,
        ADMIN_TOKEN: ADMIN,
        ADMIN_SUBMIT_TOKEN: 's'.repeat(32),
        ADMIN_READ_TOKEN: ADMIN,
      });
      expect(problems).toEqual([
        expect.stringMatching(/^ADMIN_READ_TOKEN must differ from ADMIN_TOKEN: /),
      ]);
      expect(problems[0]).not.toContain(ADMIN);
    });

    it.each([
      'http://127.0.0.1:4000',
      'http://127.8.9.10/api',
      'http://localhost:4000',
      'http://[::1]:4000',
      'https://api.example.test',
    ])('accepts API_BASE_URL=%s (https, or http to loopback)', (url) => {
      expect(loadConfig({ ...minimal, API_BASE_URL: url }).apiBaseUrl).toBe(url);
    });

    it.each([
      'http://api.example.test',
      'http://10.0.0.5:4000',
      'http://128.0.0.1',
      'http://localhost.example.test',
    ])('refuses plain http:// API_BASE_URL=%s to a host that is not loopback', (url) => {
      const [problem] = configProblems({ ...minimal, API_BASE_URL: url });
      expect(problem).toMatch(/^API_BASE_URL must use https:\/\//);
      expect(problem).toContain('API_ALLOW_INSECURE_HTTP');
    });

    it('allows any http:// API_BASE_URL with API_ALLOW_INSECURE_HTTP=true, with a warning', () => {
      const config = loadConfig({
        ...minimal,
        API_BASE_URL: 'http://api.example.test',
        API_ALLOW_INSECURE_HTTP: 'true',
      });
      expect(config.apiAllowInsecureHttp).toBe(true);
      expect(configWarnings(config).join('\n')).toMatch(/API_BASE_URL is plain http:\/\//);
    });

    it('reads API_ALLOW_INSECURE_HTTP strictly', () => {
      const [problem] = configProblems({ ...minimal, API_ALLOW_INSECURE_HTTP: 'yes' });
      expect(problem).toMatch(/^API_ALLOW_INSECURE_HTTP must be true or false/);
    });

    it.each([
      ['DATABASE_URL', 'postgresql:/app:PASSWORD@db/x'],
      ['DATABASE_URL', 'mysql://app:PASSWORD@db/x'],
      ['API_BASE_URL', 'http://app:PASSWORD@api.example.test'],
      ['API_BASE_URL', 'ftp://app:PASSWORD@api.example.test'],
      ['WEBHOOK_PATH', 'https://app:PASSWORD@host/hook'],
    ])('redacts the userinfo of %s=%s in its error', (name, value) => {
      const [problem] = configProblems({ ...minimal, [name]: value });
      expect(problem).toContain(name);
      expect(problem).toContain('[redacted]@');
      expect(problem).not.toContain('PASSWORD');
    });

    it('warns about a signing secret shorter than 16 characters, never refuses it', () => {
      const config = loadConfig({ ...minimal, WEBHOOK_SECRETS: 'whsec_long_enough_secret,short' });
      expect(config.webhookSecrets).toEqual(['whsec_long_enough_secret', 'short']);
      const warnings = configWarnings(config);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^WEBHOOK_SECRETS entry 2 of 2 is shorter than 16 characters/);
      expect(warnings[0]).not.toContain('short:');
      expect(configWarnings(loadConfig({ ...minimal, WEBHOOK_SECRETS: 'x'.repeat(16) }))).toEqual(
        [],
      );
    });

    it('reads the admission limits and keeps the in-flight budget at least one body', () => {
      const config = loadConfig({
        ...minimal,
        WEBHOOK_MAX_BODY_BYTES: '2048',
        WEBHOOK_MAX_CONNECTIONS: '10',
        WEBHOOK_MAX_INFLIGHT_BYTES: '4096',
      });
      expect(config).toMatchObject({
        webhookMaxBodyBytes: 2048,
        webhookMaxConnections: 10,
        webhookMaxInflightBytes: 4096,
      });
      // Raising the body limit raises the default budget with it.
      expect(
        loadConfig({ ...minimal, WEBHOOK_MAX_BODY_BYTES: String(32 * 1024 * 1024) })
          .webhookMaxInflightBytes,
      ).toBe(32 * 1024 * 1024);
      const [problem] = configProblems({
        ...minimal,
        WEBHOOK_MAX_BODY_BYTES: '4096',
        WEBHOOK_MAX_INFLIGHT_BYTES: '2048',
      });
      expect(problem).toMatch(/^WEBHOOK_MAX_INFLIGHT_BYTES must be an integer from 4096/);
      expect(configProblems({ ...minimal, WEBHOOK_MAX_CONNECTIONS: '0' })[0]).toContain(
        'WEBHOOK_MAX_CONNECTIONS',
      );
    });

    it('reads OPERATIONS_PORT, which must differ from PORT', () => {
      expect(loadConfig({ ...minimal, OPERATIONS_PORT: '9090' }).operationsPort).toBe(9090);
      expect(loadConfig({ ...minimal, PORT: '0', OPERATIONS_PORT: '0' }).operationsPort).toBe(0);
      expect(configProblems({ ...minimal, PORT: '8080', OPERATIONS_PORT: '8080' })[0]).toMatch(
        /^OPERATIONS_PORT must differ from PORT/,
      );
      expect(configProblems({ ...minimal, OPERATIONS_PORT: 'ops' })[0]).toMatch(/^OPERATIONS_PORT/);
    });

    it('knows loopback URLs', () => {
      expect(isLoopbackUrl('http://127.0.0.1')).toBe(true);
      expect(isLoopbackUrl('http://LOCALHOST:1')).toBe(true);
      expect(isLoopbackUrl('http://[::1]')).toBe(true);
      expect(isLoopbackUrl('http://[::ffff:10.0.0.1]')).toBe(false);
      expect(isLoopbackUrl('http://0.0.0.0')).toBe(false);
      expect(isLoopbackUrl('not a url')).toBe(false);
    });
  });
});

describe('loadApiConfig', () => {
  it('needs only the messaging API settings, checked as loadConfig checks them', () => {
    expect(loadApiConfig({ API_BASE_URL: 'https://api.example.test', API_TOKEN: 't' })).toEqual({
      apiBaseUrl: 'https://api.example.test',
      apiAllowInsecureHttp: false,
      apiToken: 't',
      apiTimeoutMs: 10_000,
      apiDeadlineMs: 60_000,
      apiMinBytesPerSecond: 65_536,
    });
    const read = readConfig({ API_BASE_URL: 'http://api.example.test' }, loadApiConfig);
    expect(read).toEqual({ error: expect.stringMatching(/API_BASE_URL must use https:\/\//) });
    expect(read).toEqual({ error: expect.stringContaining('API_TOKEN is required') });
    expect(read).not.toEqual({ error: expect.stringContaining('WEBHOOK_SECRETS') });
  });
});

describe('loadSubmitConfig', () => {
  const sandbox = () => ({ port: 4100, apiToken: 'sandbox-token' });

  it('uses the local sandbox when neither API_BASE_URL nor API_TOKEN is set, and says so', () => {
    expect(loadSubmitConfig({ API_TIMEOUT_MS: '500' }, sandbox)).toEqual({
      apiBaseUrl: 'http://127.0.0.1:4100',
      apiAllowInsecureHttp: false,
      apiToken: 'sandbox-token',
      apiTimeoutMs: 500,
      apiDeadlineMs: 60_000,
      apiMinBytesPerSecond: 65_536,
      sandbox: true,
    });
  });

  it('never asks the sandbox when either API setting is given, and checks them as usual', () => {
    const unused = () => {
      throw new Error('the sandbox settings were read');
    };
    const given = { API_BASE_URL: 'https://api.example.test', API_TOKEN: 't' };
    expect(loadSubmitConfig(given, unused)).toMatchObject({ sandbox: false, apiToken: 't' });
    const read = readConfig({ API_BASE_URL: 'https://api.example.test' }, (env) =>
      loadSubmitConfig(env, unused),
    );
    expect(read).toEqual({ error: expect.stringContaining('API_TOKEN is required') });
  });
});

describe('loadReconcileScheduleConfig', () => {
  it('runs daily by default and takes 5 or 6 cron fields', () => {
    expect(loadReconcileScheduleConfig({}).reconcileSchedule).toBe('17 3 * * *');
    expect(loadReconcileScheduleConfig({ RECONCILE_SCHEDULE: '0 * * * *' }).reconcileSchedule).toBe(
      '0 * * * *',
    );
    expect(
      loadReconcileScheduleConfig({ RECONCILE_SCHEDULE: '*/5 * * * * *' }).reconcileSchedule,
    ).toBe('*/5 * * * * *');
  });

  it.each(['daily', '* * *', '61 * * * *', '0 3 * * * * * *'])(
    'names RECONCILE_SCHEDULE for %j',
    (pattern) => {
      expect(() => loadReconcileScheduleConfig({ RECONCILE_SCHEDULE: pattern })).toThrow(
        /RECONCILE_SCHEDULE/,
      );
    },
  );
});

describe('choosing an importer', () => {
  it('refuses to start in production until IMPORTER_MODULE chooses one, saying how', () => {
    expect(configProblems({ ...minimal, NODE_ENV: 'production' })).toEqual([
      expect.stringMatching(
        /^IMPORTER_MODULE is required when NODE_ENV=production .*IMPORTER_MODULE=file .*docs\/forking\.md/,
      ),
    ]);
    expect(
      loadConfig({ ...minimal, NODE_ENV: 'production', IMPORTER_MODULE: 'file' }).importerModule,
    ).toBe('file');
    expect(loadConfig(minimal).importerModule).toBeUndefined();
  });

  it('lists every variable of the core, which no importer may declare', () => {
    const names = coreVariableNames();
    for (const name of [
      'API_TOKEN',
      'WEBHOOK_SECRETS',
      'ADMIN_TOKEN',
      'ADMIN_SUBMIT_TOKEN',
      'ADMIN_READ_TOKEN',
      'DATABASE_URL',
    ])
      expect(names.has(name)).toBe(true);
    expect(names.has('ERP_TOKEN')).toBe(false);
  });
});

describe('what each command requires', () => {
  it('reconcile runs without the webhook settings', () => {
    const { WEBHOOK_SECRETS: _unused, ...api } = minimal;
    expect(configProblems(api)).toEqual([expect.stringMatching(/^WEBHOOK_SECRETS is required/)]);
    expect(loadConfig(api, { webhooks: false }).webhookSecrets).toEqual([]);
  });

  it('replay reads the store settings alone', () => {
    expect(loadStoreConfig({})).toEqual({
      databaseUrl: 'sqlite:./data/consumer.db',
      databasePoolSize: 10,
    });
    expect(() => loadStoreConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL must be/);
  });
});

describe('SUBMISSION_LOOKUP_DELAY_MS', () => {
  it('waits 10 s by default before a lost reply is looked up, within bounds', () => {
    expect(loadConfig(minimal).submissionLookupDelayMs).toBe(10_000);
    expect(
      loadConfig({ ...minimal, SUBMISSION_LOOKUP_DELAY_MS: '0' }).submissionLookupDelayMs,
    ).toBe(0);
    expect(configProblems({ ...minimal, SUBMISSION_LOOKUP_DELAY_MS: '-1' })).toEqual([
      'SUBMISSION_LOOKUP_DELAY_MS must be an integer from 0 to 3600000 (got "-1")',
    ]);
  });
});

describe('SINK_CONCURRENCY and SINK_DELIVERY_TIMEOUT_MS', () => {
  it('deliver to the sink 16 notices at once, each waited for 30 s, within bounds', () => {
    const config = loadConfig({
      ...minimal,
      SINK_CONCURRENCY: '1',
      SINK_DELIVERY_TIMEOUT_MS: '2000',
    });
    expect(config).toMatchObject({ sinkConcurrency: 1, sinkDeliveryTimeoutMs: 2000 });
    expect(
      configProblems({ ...minimal, SINK_CONCURRENCY: '0', SINK_DELIVERY_TIMEOUT_MS: '10s' }),
    ).toEqual([
      'SINK_CONCURRENCY must be an integer from 1 to 256 (got "0")',
      'SINK_DELIVERY_TIMEOUT_MS must be an integer from 100 to 600000 (got "10s")',
    ]);
  });
});

describe('WORKER_BACKOFF_MAX_MS', () => {
  it('caps the retry backoff, within bounds', () => {
    expect(loadConfig({ ...minimal, WORKER_BACKOFF_MAX_MS: '3600000' }).workerBackoffMaxMs).toBe(
      3_600_000,
    );
    expect(configProblems({ ...minimal, WORKER_BACKOFF_MAX_MS: '10' })).toEqual([
      'WORKER_BACKOFF_MAX_MS must be an integer from 2000 to 86400000 (got "10")',
    ]);
  });
});

describe('the messaging API deadline and minimum rate (issue 26)', () => {
  it('reads API_DEADLINE_MS and API_MIN_BYTES_PER_SECOND', () => {
    const config = loadConfig({
      ...minimal,
      API_TIMEOUT_MS: '2000',
      API_DEADLINE_MS: '5000',
      API_MIN_BYTES_PER_SECOND: '1024',
    });
    expect(config).toMatchObject({
      apiTimeoutMs: 2000,
      apiDeadlineMs: 5000,
      apiMinBytesPerSecond: 1024,
    });
  });

  it('refuses a deadline below API_TIMEOUT_MS, naming both', () => {
    expect(
      configProblems({ ...minimal, API_TIMEOUT_MS: '10000', API_DEADLINE_MS: '5000' }),
    ).toEqual([
      'API_DEADLINE_MS must be at least API_TIMEOUT_MS (5000 < 10000): the deadline bounds a whole call, API_TIMEOUT_MS one wait within it',
    ]);
    // Equal is allowed: one wait may take the whole call.
    expect(
      loadConfig({ ...minimal, API_TIMEOUT_MS: '5000', API_DEADLINE_MS: '5000' }).apiDeadlineMs,
    ).toBe(5000);
  });

  it('keeps the default deadline at least a raised API_TIMEOUT_MS', () => {
    expect(loadConfig({ ...minimal, API_TIMEOUT_MS: '90000' }).apiDeadlineMs).toBe(90_000);
  });

  it('refuses garbage and zero, naming the variable', () => {
    expect(
      configProblems({ ...minimal, API_DEADLINE_MS: '1m', API_MIN_BYTES_PER_SECOND: '0' }),
    ).toEqual([
      'API_DEADLINE_MS must be an integer from 1 to 9007199254740991 (got "1m")',
      'API_MIN_BYTES_PER_SECOND must be an integer from 1 to 9007199254740991 (got "0")',
    ]);
  });

  it('is read and checked the same by the commands that only call the API', () => {
    const read = readConfig(
      { API_BASE_URL: 'https://api.example.test', API_TOKEN: 't', API_DEADLINE_MS: '10' },
      loadApiConfig,
    );
    expect(read).toEqual({ error: expect.stringContaining('API_DEADLINE_MS must be at least') });
  });
});
