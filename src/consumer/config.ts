/**
 * Consumer configuration: one pure function of an environment record. Every variable of
 * DESIGN.md section 4 is read here and nowhere else. A bad value is an error that names the
 * variable; garbage never falls back to a default silently.
 */

export type Credential =
  | { type: 'bearer'; token: string }
  | { type: 'basic'; username: string; password: string }
  | { type: 'header'; name: string; value: string };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  /** @default 3000 */
  port: number;
  /** @default '/webhooks' */
  webhookPath: string;
  /** Signing secrets; more than one during a rotation. Required. */
  webhookSecrets: readonly string[];
  /** @default 300 */
  webhookToleranceSeconds: number;
  /** @default 26214400 (25 MiB) */
  webhookMaxBodyBytes: number;
  /** Optional credential the service sends besides the signature. @default undefined */
  webhookCredential: Credential | undefined;
  /** Messaging API base URL. Required. */
  apiBaseUrl: string;
  /** Bearer token for the messaging API. Required. */
  apiToken: string;
  /** @default 10000 */
  apiTimeoutMs: number;
  /**
   * Largest document fetched from the messaging API (core document, transaction JSON);
   * documents stream to a file under DOCUMENTS_DIR/.incoming. @default 104857600 (100 MiB)
   */
  apiMaxDocumentBytes: number;
  /** @default 'sqlite:./data/consumer.db' */
  databaseUrl: string;
  /** @default './data/documents' */
  documentsDir: string;
  /** @default 8 */
  workerConcurrency: number;
  /** Attempts before an event is dead-lettered. @default 10 */
  workerMaxAttempts: number;
  /**
   * Lease of a message claim, renewed every third of it while the message is handled: how
   * long a crashed process's messages wait before another takes them over. @default 30000
   */
  claimLeaseMs: number;
  /** Deadline of one import() call; its AbortSignal fires then. @default 60000 */
  importTimeoutMs: number;
  /**
   * A module whose `createImporter(config, logger)` replaces the default importer.
   * @default undefined (importer/create-importer.ts)
   */
  importerModule: string | undefined;
  /** @default 'info' */
  logLevel: LogLevel;
  /** Enables /admin when set. @default undefined */
  adminToken: string | undefined;
  /** How long shutdown waits for in-flight work before giving up. @default 10000 */
  shutdownTimeoutMs: number;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS: readonly LogLevel[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

export function loadConfig(env: Env): Readonly<Config> {
  const problems: string[] = [];
  const read = createReader(env, problems);

  const config: Config = {
    port: read.integer('PORT', 3000, { min: 0, max: 65535 }),
    webhookPath: read.string('WEBHOOK_PATH', '/webhooks', (v) =>
      v.startsWith('/') ? undefined : 'must start with "/"',
    ),
    webhookSecrets: read.list('WEBHOOK_SECRETS'),
    webhookToleranceSeconds: read.integer('WEBHOOK_TOLERANCE_SECONDS', 300, { min: 1 }),
    webhookMaxBodyBytes: read.integer('WEBHOOK_MAX_BODY_BYTES', 26_214_400, { min: 1 }),
    webhookCredential: read.optional('WEBHOOK_CREDENTIAL', parseCredential),
    apiBaseUrl: read.required('API_BASE_URL', (v) =>
      /^https?:\/\/[^/]/.test(v) && URL.canParse(v) ? undefined : 'must be an http(s) URL',
    ),
    apiToken: read.required('API_TOKEN'),
    apiTimeoutMs: read.integer('API_TIMEOUT_MS', 10_000, { min: 1 }),
    apiMaxDocumentBytes: read.integer('API_MAX_DOCUMENT_BYTES', 104_857_600, { min: 1 }),
    databaseUrl: read.string('DATABASE_URL', 'sqlite:./data/consumer.db', (v) =>
      /^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(v)
        ? undefined
        : 'must be sqlite:<path> or postgres://...',
    ),
    documentsDir: read.string('DOCUMENTS_DIR', './data/documents'),
    workerConcurrency: read.integer('WORKER_CONCURRENCY', 8, { min: 1, max: 1000 }),
    workerMaxAttempts: read.integer('WORKER_MAX_ATTEMPTS', 10, { min: 1 }),
    claimLeaseMs: read.integer('CLAIM_LEASE_MS', 30_000, { min: 300 }),
    importTimeoutMs: read.integer('IMPORT_TIMEOUT_MS', 60_000, { min: 1 }),
    importerModule: read.optional('IMPORTER_MODULE', (v) => ({ value: v })),
    logLevel: read.string('LOG_LEVEL', 'info', (v) =>
      (LOG_LEVELS as readonly string[]).includes(v)
        ? undefined
        : `must be one of ${LOG_LEVELS.join(', ')}`,
    ) as LogLevel,
    adminToken: read.optional('ADMIN_TOKEN', (v) => ({ value: v })),
    shutdownTimeoutMs: read.integer('SHUTDOWN_TIMEOUT_MS', 10_000, { min: 0 }),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/** Where fetched documents are spooled: beside the documents, so an importer can rename them. */
export function spoolDirOf(config: Pick<Config, 'documentsDir'>): string {
  return `${config.documentsDir.replace(/\/+$/, '')}/.incoming`;
}

/**
 * For entry points: the configuration, or the message to print before exiting with the code
 * the entry point chooses. Errors other than configuration errors still throw.
 */
export function readConfig(env: Env): { config: Readonly<Config> } | { error: string } {
  try {
    return { config: loadConfig(env) };
  } catch (error) {
    if (error instanceof ConfigError) return { error: error.message };
    throw error;
  }
}

/** Parses `bearer:<token>`, `basic:<user>:<password>` or `header:<Name>:<value>`. */
function parseCredential(raw: string): { value: Credential } | { problem: string } {
  const [type, ...rest] = raw.split(':');
  const joined = rest.join(':');
  if (type === 'bearer' && joined !== '') return { value: { type, token: joined } };
  if (type === 'basic' && rest.length >= 2 && rest[0] !== '') {
    return { value: { type, username: rest[0] as string, password: rest.slice(1).join(':') } };
  }
  if (type === 'header' && rest.length >= 2 && /^[A-Za-z0-9-]+$/.test(rest[0] as string)) {
    const value = rest.slice(1).join(':');
    if (value !== '') return { value: { type, name: rest[0] as string, value } };
  }
  return {
    problem: 'must be bearer:<token>, basic:<user>:<password> or header:<Name>:<value>',
  };
}

function createReader(env: Env, problems: string[]) {
  const raw = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  return {
    string(name: string, fallback: string, check?: (v: string) => string | undefined): string {
      const value = raw(name) ?? fallback;
      const problem = check?.(value);
      if (problem !== undefined) problems.push(`${name} ${problem} (got ${JSON.stringify(value)})`);
      return value;
    },
    required(name: string, check?: (v: string) => string | undefined): string {
      const value = raw(name);
      if (value === undefined) {
        problems.push(`${name} is required`);
        return '';
      }
      const problem = check?.(value);
      if (problem !== undefined) problems.push(`${name} ${problem} (got ${JSON.stringify(value)})`);
      return value;
    },
    list(name: string): string[] {
      const value = raw(name);
      const items = (value ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      if (items.length === 0) problems.push(`${name} is required (comma-separated secrets)`);
      return items;
    },
    integer(name: string, fallback: number, range: { min?: number; max?: number }): number {
      const value = raw(name);
      if (value === undefined) return fallback;
      const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
      const { min = 0, max = Number.MAX_SAFE_INTEGER } = range;
      if (!Number.isSafeInteger(n) || n < min || n > max) {
        problems.push(
          `${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(value)})`,
        );
        return fallback;
      }
      return n;
    },
    optional<T>(
      name: string,
      parse: (v: string) => { value: T } | { problem: string },
    ): T | undefined {
      const value = raw(name);
      if (value === undefined) return undefined;
      const result = parse(value);
      if ('problem' in result) {
        // The value may be a secret: name the variable, never echo it.
        problems.push(`${name} ${result.problem}`);
        return undefined;
      }
      return result.value;
    },
  };
}
