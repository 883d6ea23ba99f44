/**
 * Consumer configuration: one pure function of an environment record. Every variable of
 * docs/configuration.md is read here and nowhere else. A bad value is an error that names the
 * variable; garbage never falls back to a default silently.
 */
import { isIPv4 } from 'node:net';
import { Cron } from 'croner';
import { type LevelWithSilent, levels } from 'pino';
import {
  CREDENTIAL_SPEC_FORMAT,
  parseCredentialSpec,
  type WebhookCredential,
} from '../protocol/index.ts';
import { DEFAULT_RETENTION, MIN_DEDUPE_DAYS, type RetentionPolicy } from './retention/policy.ts';
import { publicSecretProblems } from './settings/public-secrets.ts';
import { redactUserinfo } from './text/redact-userinfo.ts';

/** WEBHOOK_CREDENTIAL, parsed: the protocol's credential (docs/signature.md#credential). */
export type Credential = WebhookCredential;

export type LogLevel = LevelWithSilent;

export interface Config {
  /** @default 3000 */
  port: number;
  /** @default '/webhooks' */
  webhookPath: string;
  /** Signing secrets; more than one during a rotation. Required. */
  webhookSecrets: readonly string[];
  /** @default 300 */
  webhookToleranceSeconds: number;
  /** Larger bodies get 413, counted on the wire while reading. @default 1048576 (1 MiB) */
  webhookMaxBodyBytes: number;
  /**
   * Open connections above which a webhook request is answered 503 with Retry-After, unread.
   * At twice this, new connections are closed at once. @default 256
   */
  webhookMaxConnections: number;
  /**
   * Body bytes being read at once over all webhook requests (a request without Content-Length
   * counts as WEBHOOK_MAX_BODY_BYTES); a request that would pass it gets 503. At least
   * webhookMaxBodyBytes. @default 16777216 (16 MiB)
   */
  webhookMaxInflightBytes: number;
  /** Optional credential the service sends besides the signature. @default undefined */
  webhookCredential: Credential | undefined;
  /** Messaging API base URL. Required; https:// unless loopback or apiAllowInsecureHttp. */
  apiBaseUrl: string;
  /** Allows a plain http:// API_BASE_URL to a host other than loopback. @default false */
  apiAllowInsecureHttp: boolean;
  /** Bearer token for the messaging API. Required. */
  apiToken: string;
  /**
   * Longest wait for an answer's headers, and for each next piece of its body; also the window
   * over which apiMinBytesPerSecond is averaged. @default 10000
   */
  apiTimeoutMs: number;
  /**
   * Overall deadline of one messaging API call (its retries, headers and whole body); a
   * document gets this plus its size at apiMinBytesPerSecond. At least apiTimeoutMs.
   * @default 60000
   */
  apiDeadlineMs: number;
  /**
   * Slowest answer body accepted, averaged over each API_TIMEOUT_MS. @default 65536 (64 KiB/s)
   */
  apiMinBytesPerSecond: number;
  /**
   * Largest document fetched from the messaging API (core document, transaction JSON);
   * documents stream to a file under DOCUMENTS_DIR/.incoming. @default 104857600 (100 MiB)
   */
  apiMaxDocumentBytes: number;
  /** @default 'sqlite:./data/consumer.db' */
  databaseUrl: string;
  /** Connections of the PostgreSQL pool (ignored for SQLite). @default 10 */
  databasePoolSize: number;
  /** @default './data/documents' */
  documentsDir: string;
  /**
   * Messages handled at once (the worker, and each reconciliation run). Each waits on the
   * messaging API and the store most of its time, so many at once cost little CPU and share
   * the store's commits. @default 32
   */
  workerConcurrency: number;
  /**
   * Attempts before an event is dead-lettered: the retry budget. With the default backoff, ten
   * attempts span about 15 minutes. @default 10
   */
  workerMaxAttempts: number;
  /**
   * Longest wait between two attempts of a failed event (the backoff doubles from 2 s up to
   * this). Raise it with WORKER_MAX_ATTEMPTS to ride out a longer outage of your ERP.
   * @default 300000 (5 minutes)
   */
  workerBackoffMaxMs: number;
  /**
   * Lease of a message claim, renewed every third of it while the message is handled: how
   * long a crashed process's messages wait before another takes them over. @default 30000
   */
  claimLeaseMs: number;
  /**
   * After a submit of the submission outbox whose reply was lost, how long before the
   * consumer asks the service whether it created the message (docs/submissions.md): time
   * for a request the service is still working on to land. @default 10000
   */
  submissionLookupDelayMs: number;
  /** Deadline of one import() call; its AbortSignal fires then. @default 60000 */
  importTimeoutMs: number;
  /**
   * The importer: a name of src/importers/ or a path (importer/load-importer.ts). Required in
   * production (NODE_ENV=production), where no importer is assumed. @default undefined (`file`)
   */
  importerModule: string | undefined;
  /**
   * The status sink: a name of src/sinks/ or a path (sink/load-sink.ts). @default undefined
   * (`journal`)
   */
  sinkModule: string | undefined;
  /** @default 'info' */
  logLevel: LogLevel;
  /** Enables /admin when set; at least 32 characters. @default undefined */
  adminToken: string | undefined;
  /**
   * When set, /healthz, /readyz, /metrics and /admin are served on this port instead of PORT,
   * which then serves the webhook path only. @default undefined (everything on PORT)
   */
  operationsPort: number | undefined;
  /** How long shutdown waits for in-flight work before giving up. @default 10000 */
  shutdownTimeoutMs: number;
  /**
   * What this process runs: `all` (webhook ingress and worker), `ingress` (webhooks only, for
   * replicas that only receive), `worker` (the worker and the operations routes only; it finds
   * new events by polling). @default 'all'
   */
  role: Role;
  /**
   * What the worker's process deletes, and when (src/consumer/retention/README.md); undefined
   * when RETENTION_ENABLED=false. @default DEFAULT_RETENTION (bodies 30 days, events 90,
   * dead events 180, eventIds 200, messages 400)
   */
  retention: RetentionPolicy | undefined;
  /** How often retention runs. @default 3600 */
  retentionIntervalSeconds: number;
}

export type Role = 'all' | 'ingress' | 'worker';
const ROLES: readonly Role[] = ['all', 'ingress', 'worker'];

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** An admin token shorter than this is refused: it guards replay and the message views. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;
/** A signing secret shorter than this draws a start-up warning (never a refusal). */
export const WEBHOOK_SECRET_WARN_LENGTH = 16;

// pino's own names, so the list cannot drift from what the logger accepts.
const LOG_LEVELS: readonly string[] = [...Object.keys(levels.values), 'silent'];

export interface LoadConfigOptions {
  /**
   * Whether the webhook settings are required: false for commands that receive no webhooks
   * (`npm run reconcile`), which then run without WEBHOOK_SECRETS. @default true
   */
  webhooks?: boolean;
}

export function loadConfig(env: Env, options: LoadConfigOptions = {}): Readonly<Config> {
  const problems: string[] = [];
  const read = createReader(env, problems);
  const webhooks = options.webhooks ?? true;

  const webhookMaxBodyBytes = read.integer('WEBHOOK_MAX_BODY_BYTES', 1_048_576, { min: 1 });
  const config: Config = {
    port: read.integer('PORT', 3000, { min: 0, max: 65535 }),
    webhookPath: read.string('WEBHOOK_PATH', '/webhooks', (v) =>
      v.startsWith('/') ? undefined : 'must start with "/"',
    ),
    webhookSecrets: webhooks ? read.list('WEBHOOK_SECRETS') : [],
    webhookToleranceSeconds: read.integer('WEBHOOK_TOLERANCE_SECONDS', 300, { min: 1 }),
    webhookMaxBodyBytes,
    webhookMaxConnections: read.integer('WEBHOOK_MAX_CONNECTIONS', 256, { min: 1, max: 1_000_000 }),
    // Never below one whole body, or a body at the limit could never be admitted.
    webhookMaxInflightBytes: read.integer(
      'WEBHOOK_MAX_INFLIGHT_BYTES',
      Math.max(16_777_216, webhookMaxBodyBytes),
      { min: webhookMaxBodyBytes },
    ),
    webhookCredential: read.optional('WEBHOOK_CREDENTIAL', parseCredential),
    ...readApiSettings(read, problems),
    apiMaxDocumentBytes: read.integer('API_MAX_DOCUMENT_BYTES', 104_857_600, { min: 1 }),
    ...readStoreSettings(read),
    documentsDir: read.string('DOCUMENTS_DIR', './data/documents'),
    workerConcurrency: read.integer('WORKER_CONCURRENCY', 32, { min: 1, max: 1000 }),
    workerMaxAttempts: read.integer('WORKER_MAX_ATTEMPTS', 10, { min: 1 }),
    workerBackoffMaxMs: read.integer('WORKER_BACKOFF_MAX_MS', 300_000, {
      min: 2_000,
      max: 86_400_000,
    }),
    claimLeaseMs: read.integer('CLAIM_LEASE_MS', 30_000, { min: 300 }),
    submissionLookupDelayMs: read.integer('SUBMISSION_LOOKUP_DELAY_MS', 10_000, {
      min: 0,
      max: 3_600_000,
    }),
    importTimeoutMs: read.integer('IMPORT_TIMEOUT_MS', 60_000, { min: 1 }),
    importerModule: read.optional('IMPORTER_MODULE', (v) => ({ value: v })),
    sinkModule: read.optional('SINK_MODULE', (v) => ({ value: v })),
    logLevel: read.string('LOG_LEVEL', 'info', (v) =>
      LOG_LEVELS.includes(v) ? undefined : `must be one of ${LOG_LEVELS.join(', ')}`,
    ) as LogLevel,
    adminToken: read.optional('ADMIN_TOKEN', (v) =>
      v.length >= ADMIN_TOKEN_MIN_LENGTH
        ? { value: v }
        : {
            problem: `must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters long (for example the output of \`openssl rand -hex 32\`)`,
          },
    ),
    operationsPort: read.optionalInteger('OPERATIONS_PORT', { min: 0, max: 65535 }),
    shutdownTimeoutMs: read.integer('SHUTDOWN_TIMEOUT_MS', 10_000, { min: 0 }),
    role: read.string('ROLE', 'all', (v) =>
      (ROLES as readonly string[]).includes(v) ? undefined : `must be one of ${ROLES.join(', ')}`,
    ) as Role,
    retention: readRetention(read, problems),
    retentionIntervalSeconds: read.integer('RETENTION_INTERVAL_SECONDS', 3600, {
      min: 1,
      max: 7 * 86_400,
    }),
  };
  if (config.operationsPort !== undefined && config.operationsPort !== 0) {
    if (config.operationsPort === config.port)
      problems.push('OPERATIONS_PORT must differ from PORT (leave it unset to serve both on PORT)');
  }
  if (config.importerModule === undefined && read.raw('NODE_ENV') === 'production') {
    problems.push(
      'IMPORTER_MODULE is required when NODE_ENV=production (as in the image): set it to your importer (a name of src/importers/, e.g. IMPORTER_MODULE=my-erp), or to IMPORTER_MODULE=file to write the documents under DOCUMENTS_DIR on purpose (docs/forking.md)',
    );
  }
  // A secret this repository publishes (a sandbox default, a placeholder) is no secret.
  if (read.raw('NODE_ENV') === 'production') problems.push(...publicSecretProblems(config));
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/**
 * Every variable the consumer's own configuration reads. An importer or a status sink may not
 * declare one of these as its setting (load-importer.ts), so it never receives the core's
 * secrets.
 */
export function coreVariableNames(): ReadonlySet<string> {
  const names = new Set<string>();
  const recording = new Proxy<Env>(
    {},
    {
      get(_target, name) {
        if (typeof name === 'string') names.add(name);
        return undefined;
      },
    },
  );
  for (const load of [loadConfig, loadReconcileScheduleConfig]) {
    try {
      load(recording);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
    }
  }
  return names;
}

/** The messaging API settings: all that a command which only calls the API needs. */
export type ApiConfig = Pick<
  Config,
  | 'apiBaseUrl'
  | 'apiAllowInsecureHttp'
  | 'apiToken'
  | 'apiTimeoutMs'
  | 'apiDeadlineMs'
  | 'apiMinBytesPerSecond'
>;

/**
 * The messaging API settings alone (`npm run submit-invoice`), read and checked exactly as
 * `loadConfig` reads them, without requiring the webhook settings such a command never uses.
 */
export function loadApiConfig(env: Env): Readonly<ApiConfig> {
  const problems: string[] = [];
  const config = readApiSettings(createReader(env, problems), problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/** The store settings alone: all that `npm run replay` needs. */
export type StoreConfig = Pick<Config, 'databaseUrl' | 'databasePoolSize'>;

/** DATABASE_URL and DATABASE_POOL_SIZE, read and checked exactly as `loadConfig` reads them. */
export function loadStoreConfig(env: Env): Readonly<StoreConfig> {
  const problems: string[] = [];
  const read = createReader(env, problems);
  const config = readStoreSettings(read);
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

function readStoreSettings(read: Reader): StoreConfig {
  return {
    databaseUrl: read.string('DATABASE_URL', 'sqlite:./data/consumer.db', (v) =>
      /^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(v)
        ? undefined
        : 'must be sqlite:<path> or postgres://...',
    ),
    databasePoolSize: read.integer('DATABASE_POOL_SIZE', 10, { min: 1, max: 1000 }),
  };
}

/** The local sandbox (`npm run dev`, `npm run provider`): the port and token it answers on. */
export interface LocalSandbox {
  port: number;
  apiToken: string;
}

/**
 * `npm run submit-invoice`'s settings: loadApiConfig's, except that with neither API_BASE_URL
 * nor API_TOKEN set the command means the local sandbox, whose port and token `sandbox` reads
 * (the provider's configuration). It is called only then, so a sandbox setting never stops a
 * command configured for a real API. `sandbox` in the result says which was used.
 */
export function loadSubmitConfig(
  env: Env,
  sandbox: () => LocalSandbox,
): Readonly<ApiConfig & { sandbox: boolean }> {
  const unset = (name: string) => (env[name]?.trim() ?? '') === '';
  if (!unset('API_BASE_URL') || !unset('API_TOKEN')) {
    return Object.freeze({ ...loadApiConfig(env), sandbox: false });
  }
  const { port, apiToken } = sandbox();
  const local = { ...env, API_BASE_URL: `http://127.0.0.1:${port}`, API_TOKEN: apiToken };
  return Object.freeze({ ...loadApiConfig(local), sandbox: true });
}

function readApiSettings(read: Reader, problems: string[]): ApiConfig {
  const apiAllowInsecureHttp = read.boolean('API_ALLOW_INSECURE_HTTP', false);
  const apiTimeoutMs = read.integer('API_TIMEOUT_MS', 10_000, { min: 1 });
  // Unset, the deadline is never below the per-wait timeout an operator raised.
  const apiDeadlineMs = read.integer('API_DEADLINE_MS', Math.max(60_000, apiTimeoutMs), {
    min: 1,
  });
  if (apiDeadlineMs < apiTimeoutMs) {
    problems.push(
      `API_DEADLINE_MS must be at least API_TIMEOUT_MS (${apiDeadlineMs} < ${apiTimeoutMs}): the deadline bounds a whole call, API_TIMEOUT_MS one wait within it`,
    );
  }
  return {
    apiBaseUrl: read.required('API_BASE_URL', (v) => checkApiBaseUrl(v, apiAllowInsecureHttp)),
    apiAllowInsecureHttp,
    apiToken: read.required('API_TOKEN'),
    apiTimeoutMs,
    apiDeadlineMs,
    apiMinBytesPerSecond: read.integer('API_MIN_BYTES_PER_SECOND', 65_536, { min: 1 }),
  };
}

export interface ReconcileScheduleConfig {
  /**
   * When reconciliation runs: a cron pattern of 5 fields (minute hour day month weekday), or 6
   * with seconds first, in the process's time zone (UTC in the image unless TZ is set).
   * @default '17 3 * * *' (daily at 03:17)
   */
  reconcileSchedule: string;
}

/** Settings of the reconciliation scheduler (`reconcile-schedule`), RECONCILE_SCHEDULE. */
export function loadReconcileScheduleConfig(env: Env): Readonly<ReconcileScheduleConfig> {
  const problems: string[] = [];
  const read = createReader(env, problems);
  const reconcileSchedule = read.string('RECONCILE_SCHEDULE', '17 3 * * *', (v) => {
    try {
      new Cron(v, { paused: true }).stop();
      return /^\S+(\s+\S+){4,5}$/.test(v)
        ? undefined
        : 'must be a cron pattern of 5 fields (or 6 with seconds first)';
    } catch (error) {
      return `is not a cron pattern: ${(error as Error).message}`;
    }
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({ reconcileSchedule });
}

/** Each period within its bounds, and in the order the data depends on each other. */
function readRetention(
  read: ReturnType<typeof createReader>,
  problems: string[],
): RetentionPolicy | undefined {
  const enabled = read.boolean('RETENTION_ENABLED', true);
  const days = (name: string, fallback: number, min: number) =>
    read.integer(name, fallback, { min, max: 36_500 });
  const policy: RetentionPolicy = {
    bodyDays: days('RETENTION_BODY_DAYS', DEFAULT_RETENTION.bodyDays, 0),
    eventDays: days('RETENTION_EVENT_DAYS', DEFAULT_RETENTION.eventDays, 1),
    deadDays: days('RETENTION_DEAD_DAYS', DEFAULT_RETENTION.deadDays, 1),
    dedupeDays: days('RETENTION_DEDUPE_DAYS', DEFAULT_RETENTION.dedupeDays, MIN_DEDUPE_DAYS),
    messageDays: days('RETENTION_MESSAGE_DAYS', DEFAULT_RETENTION.messageDays, 1),
  };
  if (policy.bodyDays > policy.eventDays) {
    problems.push(
      `RETENTION_BODY_DAYS must not exceed RETENTION_EVENT_DAYS (${policy.bodyDays} > ${policy.eventDays}): a body goes with its event`,
    );
  }
  if (policy.deadDays < policy.eventDays) {
    problems.push(
      `RETENTION_DEAD_DAYS must be at least RETENTION_EVENT_DAYS (${policy.deadDays} < ${policy.eventDays}): a dead event whose message is still open is kept at least as long as a finished one`,
    );
  }
  if (policy.messageDays < policy.dedupeDays) {
    problems.push(
      `RETENTION_MESSAGE_DAYS must be at least RETENTION_DEDUPE_DAYS (${policy.messageDays} < ${policy.dedupeDays}): a message's import record must outlive every redelivery of its events`,
    );
  }
  return enabled ? policy : undefined;
}

/** Where fetched documents are spooled: beside the documents, so an importer can rename them. */
export function spoolDirOf(config: Pick<Config, 'documentsDir'>): string {
  return `${config.documentsDir.replace(/\/+$/, '')}/.incoming`;
}

/**
 * Things worth a warning line at start-up that must not stop it. Never contains a secret.
 * The signing secret's format is the service's to choose, so a short one is only suspicious:
 * the usual cause is a secret copied in part.
 */
export function configWarnings(config: Readonly<Config>): string[] {
  const warnings: string[] = [];
  config.webhookSecrets.forEach((secret, index) => {
    if (secret.length < WEBHOOK_SECRET_WARN_LENGTH) {
      warnings.push(
        `WEBHOOK_SECRETS entry ${index + 1} of ${config.webhookSecrets.length} is shorter than ${WEBHOOK_SECRET_WARN_LENGTH} characters: check that the whole signing secret was copied`,
      );
    }
  });
  if (config.apiAllowInsecureHttp && !isLoopbackUrl(config.apiBaseUrl)) {
    warnings.push(
      'API_BASE_URL is plain http:// to a non-loopback host (API_ALLOW_INSECURE_HTTP=true): the API token travels unencrypted',
    );
  }
  return warnings;
}

function checkApiBaseUrl(value: string, allowInsecureHttp: boolean): string | undefined {
  if (!/^https?:\/\/[^/]/i.test(value) || !URL.canParse(value)) return 'must be an http(s) URL';
  if (new URL(value).protocol === 'http:' && !allowInsecureHttp && !isLoopbackUrl(value)) {
    return 'must use https:// (plain http:// only to a loopback address, or with API_ALLOW_INSECURE_HTTP=true): the API token would travel unencrypted';
  }
  return undefined;
}

/** localhost, 127.0.0.0/8 or ::1: traffic that never leaves the machine. */
export function isLoopbackUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const host = new URL(value).hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || (isIPv4(host) && host.startsWith('127.'));
}

/**
 * For entry points: the configuration, or the message to print before exiting with the code
 * the entry point chooses. Errors other than configuration errors still throw.
 */
export function readConfig(env: Env): { config: Readonly<Config> } | { error: string };
export function readConfig<T>(env: Env, load: (env: Env) => T): { config: T } | { error: string };
export function readConfig(
  env: Env,
  load: (env: Env) => unknown = loadConfig,
): { config: unknown } | { error: string } {
  try {
    return { config: load(env) };
  } catch (error) {
    if (error instanceof ConfigError) return { error: error.message };
    throw error;
  }
}

/** Parses `bearer:<token>`, `basic:<user>:<password>` or `header:<Name>:<value>`. */
function parseCredential(raw: string): { value: Credential } | { problem: string } {
  const value = parseCredentialSpec(raw);
  return value === undefined ? { problem: CREDENTIAL_SPEC_FORMAT } : { value };
}

/** Quoted, with URL userinfo redacted and at most 200 characters: a value fit to echo. */
function shown(value: string): string {
  const redacted = redactUserinfo(value);
  return JSON.stringify(redacted.length > 200 ? `${redacted.slice(0, 200)}…` : redacted);
}

type Reader = ReturnType<typeof createReader>;

function createReader(env: Env, problems: string[]) {
  const raw = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const integer = (
    name: string,
    fallback: number,
    range: { min?: number; max?: number },
  ): number => {
    const value = raw(name);
    if (value === undefined) return fallback;
    const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    const { min = 0, max = Number.MAX_SAFE_INTEGER } = range;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got ${shown(value)})`);
      return fallback;
    }
    return n;
  };
  return {
    raw,
    string(name: string, fallback: string, check?: (v: string) => string | undefined): string {
      const value = raw(name) ?? fallback;
      const problem = check?.(value);
      if (problem !== undefined) problems.push(`${name} ${problem} (got ${shown(value)})`);
      return value;
    },
    required(name: string, check?: (v: string) => string | undefined): string {
      const value = raw(name);
      if (value === undefined) {
        problems.push(`${name} is required`);
        return '';
      }
      const problem = check?.(value);
      if (problem !== undefined) problems.push(`${name} ${problem} (got ${shown(value)})`);
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
    integer,
    optionalInteger(name: string, range: { min: number; max: number }): number | undefined {
      return raw(name) === undefined ? undefined : integer(name, 0, range);
    },
    boolean(name: string, fallback: boolean): boolean {
      const value = raw(name);
      if (value === undefined) return fallback;
      if (value === 'true' || value === 'false') return value === 'true';
      problems.push(`${name} must be true or false (got ${shown(value)})`);
      return fallback;
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
