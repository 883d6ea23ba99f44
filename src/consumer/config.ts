/**
 * Consumer configuration: one pure function of an environment record. Every variable of
 * docs/configuration.md is read through here: each capability declares its own section beside
 * it (http/settings.ts, api/settings.ts, store/settings.ts, worker/settings.ts, ...), and
 * `loadConfig` composes them, so one start-up reports every bad variable of every section in
 * one list. A bad value is an error that names the variable; garbage never falls back to a
 * default silently (settings/reader.ts).
 */
import { type ApiSettings, apiWarnings, readApiSettings } from './api/settings.ts';
import { type ClaimSettings, readClaimSettings } from './claims/settings.ts';
import {
  type OperationsSettings,
  readOperationsSettings,
  readWebhookSettings,
  type WebhookSettings,
  webhookWarnings,
} from './http/settings.ts';
import {
  type ImporterSettings,
  readDocumentsDir,
  readImporterSettings,
} from './importer/settings.ts';
import { loadReconcileScheduleConfig } from './reconcile/settings.ts';
import { type RetentionSettings, readRetentionSettings } from './retention/settings.ts';
import { type ProcessSettings, readLogLevel, readProcessSettings } from './settings/process.ts';
import { publicSecretProblems } from './settings/public-secrets.ts';
import { ConfigError, createReader, type Env } from './settings/reader.ts';
import { readSinkSettings, type SinkSettings } from './sink/settings.ts';
import { readStoreSettings, type StoreConfig } from './store/settings.ts';
import { readSubmissionSettings, type SubmissionSettings } from './submit/settings.ts';
import { readWorkerSettings, type WorkerSettings } from './worker/settings.ts';

// The sections and the loaders of commands that need one section alone, from one front door.
export {
  type ApiConfig,
  apiClientOptions,
  type LocalSandbox,
  loadApiConfig,
  loadSubmitConfig,
} from './api/settings.ts';
export {
  ADMIN_TOKEN_MIN_LENGTH,
  type Credential,
  WEBHOOK_SECRET_WARN_LENGTH,
} from './http/settings.ts';
export { spoolDirOf } from './importer/settings.ts';
export { loadReconcileScheduleConfig, type ReconcileScheduleConfig } from './reconcile/settings.ts';
export { isLoopbackUrl } from './settings/loopback.ts';
export type { LogLevel, ProcessSettings, Role } from './settings/process.ts';
export { ConfigError } from './settings/reader.ts';
export { loadStoreConfig, type StoreConfig } from './store/settings.ts';

export type Config = WebhookSettings &
  ApiSettings &
  StoreConfig &
  ImporterSettings &
  WorkerSettings &
  ClaimSettings &
  SubmissionSettings &
  SinkSettings &
  OperationsSettings &
  ProcessSettings &
  RetentionSettings;

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
  const webhook = readWebhookSettings(read, options.webhooks ?? true);
  const config: Config = {
    ...webhook,
    ...readApiSettings(read),
    ...readStoreSettings(read),
    ...readDocumentsDir(read),
    ...readWorkerSettings(read),
    ...readClaimSettings(read),
    ...readSubmissionSettings(read),
    ...readImporterSettings(read),
    ...readSinkSettings(read),
    ...readLogLevel(read),
    ...readOperationsSettings(read, webhook.port),
    ...readProcessSettings(read),
    ...readRetentionSettings(read),
  };
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

/** Things worth a warning line at start-up that must not stop it. Never contains a secret. */
export function configWarnings(config: Readonly<Config>): string[] {
  return [...webhookWarnings(config), ...apiWarnings(config)];
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
