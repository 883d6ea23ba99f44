/**
 * The messaging API's configuration section (docs/configuration.md#messaging-api): where the
 * API is, its token, and the bounds of every call. config.ts composes it with the others;
 * `npm run submit-invoice` reads it alone (loadApiConfig).
 */
import type { Logger } from 'pino';
import { isLoopbackUrl } from '../settings/loopback.ts';
import { type Env, loadSection, type Reader } from '../settings/reader.ts';
import type { ApiClientOptions } from './options.ts';

/** The settings of a command that only calls the API. */
export interface ApiConfig {
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
}

export interface ApiSettings extends ApiConfig {
  /**
   * Largest document fetched from the messaging API (core document, transaction JSON);
   * documents stream to a file under DOCUMENTS_DIR/.incoming. @default 104857600 (100 MiB)
   */
  apiMaxDocumentBytes: number;
}

export function readApiConfig(read: Reader): ApiConfig {
  const apiAllowInsecureHttp = read.boolean('API_ALLOW_INSECURE_HTTP', false);
  const apiTimeoutMs = read.integer('API_TIMEOUT_MS', 10_000, { min: 1 });
  // Unset, the deadline is never below the per-wait timeout an operator raised.
  const apiDeadlineMs = read.integer('API_DEADLINE_MS', Math.max(60_000, apiTimeoutMs), {
    min: 1,
  });
  if (apiDeadlineMs < apiTimeoutMs) {
    read.problem(
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

export function readApiSettings(read: Reader): ApiSettings {
  return {
    ...readApiConfig(read),
    apiMaxDocumentBytes: read.integer('API_MAX_DOCUMENT_BYTES', 104_857_600, { min: 1 }),
  };
}

/**
 * The messaging API settings alone (`npm run submit-invoice`), read and checked exactly as
 * `loadConfig` reads them, without requiring the webhook settings such a command never uses.
 */
export function loadApiConfig(env: Env): Readonly<ApiConfig> {
  return loadSection(env, readApiConfig);
}

/**
 * The client options these settings stand for: a command that only calls the API passes its
 * ApiConfig; the consumer and reconciliation, which fetch documents, also the document limit
 * and where documents are spooled (beside DOCUMENTS_DIR: importer/settings.ts, spoolDirOf).
 */
export function apiClientOptions(
  config: ApiConfig & Partial<Pick<ApiSettings, 'apiMaxDocumentBytes'>>,
  extras: { spoolDir?: string; logger?: Logger } = {},
): ApiClientOptions {
  return {
    baseUrl: config.apiBaseUrl,
    token: config.apiToken,
    timeoutMs: config.apiTimeoutMs,
    deadlineMs: config.apiDeadlineMs,
    minBytesPerSecond: config.apiMinBytesPerSecond,
    ...(config.apiMaxDocumentBytes === undefined
      ? {}
      : { maxDocumentBytes: config.apiMaxDocumentBytes }),
    ...extras,
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

/** Start-up warnings of this section. Never contains a secret. */
export function apiWarnings(settings: Pick<ApiConfig, 'apiAllowInsecureHttp' | 'apiBaseUrl'>) {
  return settings.apiAllowInsecureHttp && !isLoopbackUrl(settings.apiBaseUrl)
    ? [
        'API_BASE_URL is plain http:// to a non-loopback host (API_ALLOW_INSECURE_HTTP=true): the API token travels unencrypted',
      ]
    : [];
}

function checkApiBaseUrl(value: string, allowInsecureHttp: boolean): string | undefined {
  if (!/^https?:\/\/[^/]/i.test(value) || !URL.canParse(value)) return 'must be an http(s) URL';
  if (new URL(value).protocol === 'http:' && !allowInsecureHttp && !isLoopbackUrl(value)) {
    return 'must use https:// (plain http:// only to a loopback address, or with API_ALLOW_INSECURE_HTTP=true): the API token would travel unencrypted';
  }
  return undefined;
}
